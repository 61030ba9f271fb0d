// demo_server's replies (see demo_replies.hpp).

#include "demo_replies.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rateperf::demo {

namespace {

// The page of seed 002: a template with a small search form, no database behind it.
constexpr std::string_view search_form_page = R"(<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Search</title>
  <style>
    body { font-family: sans-serif; margin: 2em auto; max-width: 40em; }
    form { display: flex; gap: 0.5em; }
    input[type=text] { flex: 1; padding: 0.3em; }
  </style>
</head>
<body>
  <h1>Search</h1>
  <form action="/search" method="get">
    <label for="q">Query</label>
    <input type="text" id="q" name="q" size="40" autofocus>
    <select name="in">
      <option value="all">everything</option>
      <option value="title">titles</option>
    </select>
    <input type="submit" value="Search">
  </form>
  <p>demo_server: a stand-in for a small Pylons page.</p>
</body>
</html>
)";

}  // namespace

std::string make_body(std::optional<std::size_t> size) {
  std::string body(search_form_page);
  if (!size || *size == body.size()) return body;
  constexpr std::string_view open = "<!--", close = "-->\n";
  if (*size < body.size() + open.size() + close.size()) return std::string(*size, 'x');
  std::string padding(*size - body.size() - open.size() - close.size(), '.');
  for (std::size_t i = 63; i < padding.size(); i += 64) padding[i] = '\n';
  return body.append(open).append(padding).append(close);
}

std::string make_reply(int status, std::string_view reason, const std::string& body,
                       bool with_body) {
  std::string reply = "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) +
                      "\r\n"
                      "Server: rateperf-demo\r\n"
                      "Content-Type: text/html; charset=utf-8\r\n"
                      "Content-Length: " +
                      std::to_string(body.size()) +
                      "\r\n"
                      "Connection: close\r\n\r\n";
  if (with_body) reply += body;
  return reply;
}

}  // namespace rateperf::demo
