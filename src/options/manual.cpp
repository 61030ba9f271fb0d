#include "options/manual.hpp"

#include <initializer_list>

#include "options/help.hpp"
#include "options/table.hpp"

namespace rateperf::options {

std::string roff_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    line_start = c == '\n';
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  return out;
}

namespace {

// Appended piece by piece: GCC 12 gives a false -Wrestrict for "..." + std::string.
std::string bold(std::string_view text) {
  std::string out = "\\fB";
  out += roff_escaped(text);
  out += "\\fR";
  return out;
}

std::string italic(std::string_view text) {
  std::string out = "\\fI";
  out += roff_escaped(text);
  out += "\\fR";
  return out;
}

// Words joined by spaces, for compgen -W.
template <class Words>
std::string words(const Words& list) {
  std::string out;
  for (const std::string_view word : list) {
    if (!out.empty()) out += ' ';
    out += word;
  }
  return out;
}

}  // namespace

std::string man_options() {
  std::string out;
  bool first = true;
  Group group{};
  for (const OptionSpec& spec : option_table()) {
    if (first || spec.group != group) {
      out += ".SS " + roff_escaped(group_caption(spec.group)) + "\n";
      group = spec.group;
      first = false;
    }
    out += ".TP\n";
    out += option_label(spec, bold, italic);
    out += '\n';
    out += roff_escaped(spec.help);
    out += '\n';
  }
  return out;
}

std::string bash_completion(const std::vector<std::string>& search_options) {
  std::string options;
  std::string file_options;
  std::string choices;  // case arms: an option with a set of values
  for (const OptionSpec& spec : option_table()) {
    if (!options.empty()) options += ' ';
    options += "--";
    options += spec.name;
    if (spec.short_name != 0) {
      options += " -";
      options += spec.short_name;
    }
    if (spec.kind == ValueKind::file) {
      if (!file_options.empty()) file_options += '|';
      file_options += "--";
      file_options += spec.name;
    }
    if (spec.kind == ValueKind::choice && !spec.choices.empty()) {
      // Appended piece by piece: GCC 12 gives a false -Wrestrict for "--" + std::string(...).
      choices += "      --";
      choices += spec.name;
      choices += ") COMPREPLY=($(compgen -W '";
      choices += words(spec.choices);
      choices += "' -- \"$cur\")); return ;;\n";
    }
  }
  std::string out =
      "# bash completion for rateperf, generated from its option table (do not edit)\n"
      "_rateperf() {\n"
      "  local cur prev words cword sub i\n"
      "  COMPREPLY=()\n"
      "  cur=${COMP_WORDS[COMP_CWORD]}\n"
      "  prev=${COMP_WORDS[COMP_CWORD-1]}\n"
      "  sub=\n"
      "  for ((i = 1; i < COMP_CWORD; i++)); do\n"
      "    case ${COMP_WORDS[i]} in\n"
      "      merge|report|search) sub=${COMP_WORDS[i]}; break ;;\n"
      "    esac\n"
      "  done\n"
      "  case $sub in\n"
      "    merge)\n"
      "      case $prev in --json|--csv) COMPREPLY=($(compgen -f -- \"$cur\")); return ;; esac\n"
      "      if [[ $cur == -* ]]; then\n"
      "        COMPREPLY=($(compgen -W '" +
      words(std::initializer_list<std::string_view>{"--json", "--csv", "--help", "-h"}) +
      "' -- \"$cur\"))\n"
      "      else\n"
      "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "      fi\n"
      "      return ;;\n"
      "    report)\n"
      "      case $prev in -o|--output) COMPREPLY=($(compgen -f -- \"$cur\")); return ;; esac\n"
      "      if [[ $cur == -* ]]; then\n"
      "        COMPREPLY=($(compgen -W '" +
      words(std::initializer_list<std::string_view>{"--output", "-o", "--help", "-h"}) +
      "' -- \"$cur\"))\n"
      "      else\n"
      "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
      "      fi\n"
      "      return ;;\n"
      "    search)\n"
      "      case $prev in\n"
      "        --json|--csv|-o|--report) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n"
      "      esac\n"
      "      if [[ $cur == -* ]]; then\n"
      "        COMPREPLY=($(compgen -W '" +
      words(search_options) + " " + options +
      "' -- \"$cur\"))\n"
      "      fi\n"
      "      return ;;\n"
      "  esac\n"
      "  case $prev in\n" +
      choices + "      --period) COMPREPLY=($(compgen -W 'd e u v' -- \"$cur\")); return ;;\n";
  if (!file_options.empty()) {
    out += "      " + file_options + ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
  }
  out +=
      "  esac\n"
      "  if [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W '" +
      options +
      "' -- \"$cur\"))\n"
      "  elif ((COMP_CWORD == 1)); then\n"
      "    COMPREPLY=($(compgen -W 'merge report search' -- \"$cur\"))\n"
      "  fi\n"
      "}\n"
      "complete -F _rateperf rateperf\n";
  return out;
}

}  // namespace rateperf::options
