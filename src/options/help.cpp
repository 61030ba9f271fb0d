#include "options/help.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace rateperf::options {

namespace po = boost::program_options;

Descriptions make_descriptions() {
  auto text = [](const char* name) { return po::value<std::string>()->value_name(name); };
  Descriptions d;

  // One option per line reads as a table; clang-format would fold the chained calls.
  // clang-format off
  po::options_description target("Target");
  target.add_options()
      ("server", text("S"), "host name or address of the server (default localhost)")
      ("port", text("N"), "TCP port of the server, 1..65535 (default 80)")
      ("uri", text("S"), "request target, starting with '/' (default /)")
      ("server-name", text("S"), "Host header (default: the server, plus :port if not 80)");
  d.groups.push_back(target);
  d.captions.emplace_back("Target");

  po::options_description load("Load");
  load.add_options()
      ("rate", text("X"), "connections per second; 0: one after another (default 0)")
      ("period", text("[d|u|e|v]T1[,T2...]"), "gaps between connections, instead of --rate (see below)")
      ("num-conns", text("N"), "connections to issue in all (default 1)")
      ("num-calls", text("N"), "requests per connection; only 1 for now (default 1)")
      ("timeout", text("X"), "inactivity timeout in seconds; 0: none (default 0)")
      ("think-timeout", text("X"), "seconds added to --timeout for the reply to start (default 0)")
      ("seed", text("N"), "seed of the u and e gaps (default 1 + I of --client)");
  d.groups.push_back(load);
  d.captions.emplace_back("Load");

  po::options_description request("Request");
  request.add_options()
      ("method", text("S"), "request method (default GET)")
      ("add-header", text("S"), "extra header, repeatable; \\n separates lines (default none)")
      ("http-version", text("V"), "1.0 or 1.1 (default 1.1)");
  d.groups.push_back(request);
  d.captions.emplace_back("Request");

  po::options_description socket("Socket");
  socket.add_options()
      ("send-buffer", text("N"), "SO_SNDBUF in bytes (default: the kernel's, echoed as 4096)")
      ("recv-buffer", text("N"), "SO_RCVBUF in bytes (default: the kernel's, echoed as 16384)");
  d.groups.push_back(socket);
  d.captions.emplace_back("Socket");

  po::options_description output("Output");
  output.add_options()
      ("verbose,v", "print 5-s reply-rate samples on stderr, and ab's table (default off)")
      ("json", text("FILE"), "write the results as one JSON document to FILE (- for stdout)")
      ("csv", text("FILE"), "append a row of results to FILE (header if new; - for stdout)")
      ("quiet,q", "no live progress line on stderr");
  d.groups.push_back(output);
  d.captions.emplace_back("Output");

  po::options_description thresholds("Thresholds");
  thresholds.add_options()
      ("max-lag", text("MS"), "exit 3 when the p99 lag of the client exceeds MS ms")
      ("max-error-rate", text("P"), "exit 3 when more than P % of the arrivals fail");
  d.groups.push_back(thresholds);
  d.captions.emplace_back("Thresholds");

  po::options_description misc("Misc");
  misc.add_options()
      ("client", text("I/N"), "this is client I of N, 0 <= I < N (default 0/1)")
      ("help,h", "print this help and exit")
      ("version,V", "print the version and exit");
  d.groups.push_back(misc);
  d.captions.emplace_back("Misc");

  // clang-format on
  for (const auto& group : d.groups) d.all.add(group);
  d.all.add_options()("url", po::value<std::string>());
  return d;
}

// One line per option, in one column layout for every group; Boost's own layout wraps each
// group at its own width.
std::string help_text(const Descriptions& d) {
  std::vector<std::pair<std::string, std::string>> rows;  // empty description: a group heading
  std::size_t width = 0;
  for (std::size_t i = 0; i < d.groups.size(); ++i) {
    rows.emplace_back(d.captions[i] + ":", "");
    for (const auto& option : d.groups[i].options()) {
      std::string name = option->canonical_display_name(po::command_line_style::allow_long);
      // format_name() gives "-v [ --verbose ]" for an option with a short name.
      const std::string both = option->format_name();
      if (both.size() > 2 && both[0] == '-' && both[1] != '-')
        name = both.substr(0, 2) + ", " + name;
      const std::string parameter = option->format_parameter();
      if (!parameter.empty()) name += " " + parameter;
      width = std::max(width, name.size());
      rows.emplace_back(std::move(name), option->description());
    }
  }

  std::string out =
      "Usage: rateperf [OPTION]... [http://HOST[:PORT][/PATH[?QUERY]]]\n"
      "Open-loop HTTP benchmark: starts connections at a fixed rate whatever the server does,\n"
      "and reports in httperf's format.\n";
  for (const auto& [name, description] : rows) {
    if (description.empty()) {
      out += "\n" + name + "\n";
    } else {
      out += "  " + name + std::string(width + 2 - name.size(), ' ') + description + "\n";
    }
  }
  out +=
      "\n--period, all numbers in seconds:\n"
      "  d T1 or T1         a fixed gap T1 (d0: one connection after another)\n"
      "  e T1               exponential gaps with mean T1 (Poisson arrivals)\n"
      "  u T1,T2            gaps uniform in [T1,T2)\n"
      "  v T1,D1,T2,D2...   gap T1 for D1 seconds, then T2 for D2 seconds..., cycling\n"
      "\nURL form: a URL argument sets --server, --port (default 80) and --uri (default /);\n"
      "an IPv6 address goes in brackets (http://[::1]:8080/). Options given explicitly\n"
      "override the URL's parts. Only http:// is supported.\n"
      "\nExample: rateperf --server 127.0.0.1 --port 8080 --rate 300 --num-conns 40000 --timeout "
      "5\n";
  return out;
}

}  // namespace rateperf::options
