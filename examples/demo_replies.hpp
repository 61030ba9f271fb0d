#pragma once

// demo_server's replies, rendered once at start-up: the page of seed 002 (or a body of a given
// size) behind an HTTP/1.1 status line and headers.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rateperf::demo {

// The form page when no size is asked for; otherwise exactly `size` bytes: the page padded with
// an HTML comment when it is larger, plain filler when it is smaller.
std::string make_body(std::optional<std::size_t> size);

// A whole reply that closes the connection; with_body false gives the headers alone (for HEAD),
// still announcing the body's length.
std::string make_reply(int status, std::string_view reason, const std::string& body,
                       bool with_body);

}  // namespace rateperf::demo
