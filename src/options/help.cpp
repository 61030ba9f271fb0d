#include "options/help.hpp"

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "options/table.hpp"

namespace rateperf::options {

namespace po = boost::program_options;

po::options_description boost_descriptions() {
  po::options_description all;
  for (const OptionSpec& spec : option_table()) {
    std::string name(spec.name);
    if (spec.short_name != 0) name += std::string(",") + spec.short_name;
    if (spec.kind == ValueKind::none) {
      all.add_options()(name.c_str(), "");
    } else if (!spec.implicit_value.empty()) {
      all.add_options()(name.c_str(),
                        po::value<std::string>()->implicit_value(std::string(spec.implicit_value)),
                        "");
    } else {
      all.add_options()(name.c_str(), po::value<std::string>(), "");
    }
  }
  all.add_options()("url", po::value<std::string>());
  return all;
}

namespace {

std::string as_is(std::string_view text) {
  return std::string(text);
}

}  // namespace

std::string option_label(const OptionSpec& spec, Markup name, Markup value) {
  // Appended piece by piece: GCC 12 gives a false -Wrestrict for "-" + std::string(...).
  std::string out;
  if (spec.short_name != 0) {
    const char short_name[] = {'-', spec.short_name};
    out += name(std::string_view(short_name, 2));
    out += ", ";
  }
  std::string long_name = "--";
  long_name += spec.name;
  out += name(long_name);
  if (!spec.implicit_value.empty()) {
    out += "[=";
    out += value(spec.value_name);
    out += ']';
  } else if (!spec.value_name.empty()) {
    out += ' ';
    out += value(spec.value_name);
  }
  return out;
}

// One line per option, in one column layout for every section.
std::string help_text() {
  std::vector<std::pair<std::string, std::string>> rows;  // empty description: a heading
  std::size_t width = 0;
  bool first = true;
  Group group{};
  for (const OptionSpec& spec : option_table()) {
    if (first || spec.group != group) {
      rows.emplace_back(std::string(group_caption(spec.group)) + ":", "");
      group = spec.group;
      first = false;
    }
    std::string name = option_label(spec, as_is, as_is);
    width = std::max(width, name.size());
    rows.emplace_back(std::move(name), std::string(spec.help));
  }

  std::string out =
      "Usage: rateperf [OPTION]... [http[s]://HOST[:PORT][/PATH[?QUERY]]]\n"
      "       rateperf merge [--json FILE] [--csv FILE] DUMP...\n"
      "Open-loop HTTP benchmark: starts connections at a fixed rate whatever the server does,\n"
      "and reports in httperf's format. merge: one report of the --dump files of the shards of\n"
      "one schedule.\n";
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
      "\nURL form: a URL argument sets --server, --port (default 80; https://: 443, and TLS)\n"
      "and --uri (default /); an IPv6 address goes in brackets (http://[::1]:8080/). Options\n"
      "given explicitly override the URL's parts. http:// and https:// are supported.\n"
      "\nExample: rateperf --server 127.0.0.1 --port 8080 --rate 300 --num-conns 40000 --timeout "
      "5\n";
  return out;
}

}  // namespace rateperf::options
