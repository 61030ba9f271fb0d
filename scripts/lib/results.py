#!/usr/bin/env python3
"""Figures of a run, read from rateperf's --json document (docs/json.md) for the shell scripts;
scripts/lib/results.sh wraps it.

  results.py get FILE TEMPLATE         TEMPLATE with every {FIELD} or {FIELD:SPEC} replaced
  results.py calc FILE SPEC EXPRESSION  a Python expression over {FIELD}s, formatted with SPEC
  results.py true FILE EXPRESSION      exit status 0 when the expression holds, 1 otherwise
  results.py from-text TOOL TEXT JSON  writes JSON with the figures of httperf's or wrk's text

FILE may be FILE#POINTER: the part of the document at POINTER (search.json#/steps/0/run, the
first step's run). FIELD is a JSON pointer (/reply_rate/avg_per_s, /steps/0/rate_per_s) or one of the DERIVED figures below; SPEC is a
Python format spec (.1f), which formats a double as the text report's printf does. A field the
document lacks reads as "?" in get and calc, and makes true false.
"""
import json
import os
import re
import sys


def pointer(doc, path):
    for key in path.strip("/").split("/"):
        if isinstance(doc, list) and key.isdigit() and int(key) < len(doc):
            doc = doc[int(key)]
        elif isinstance(doc, dict) and key in doc:
            doc = doc[key]
        else:
            return None
    return doc


def load(spec):
    """The document of FILE, or of FILE#POINTER the part of it at POINTER (a search's step:
    search.json#/steps/0/run); {} when there is none."""
    path, inner = spec, ""
    if "#" in spec and not os.path.exists(spec):
        path, inner = spec.split("#", 1)
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError):
        return {}
    part = pointer(doc, inner) if inner else doc
    return part if isinstance(part, dict) else {}


def reply_rate(d):
    """The 5-s samples' average; a run shorter than 5 s has none (httperf's avg then reads 0),
    so for it replies / test duration."""
    if (pointer(d, "/reply_rate/samples") or 0) > 0:
        return pointer(d, "/reply_rate/avg_per_s")
    duration = pointer(d, "/totals/duration_s") or 0
    return pointer(d, "/totals/replies") / duration if duration > 0 else None


def ok_reply_rate(d):
    """reply_rate counting only the 2xx replies (a proxy's 502s are not service); 0 without."""
    replies, rate = pointer(d, "/totals/replies") or 0, reply_rate(d)
    return 0 if not replies or rate is None else rate * pointer(d, "/reply_status/2xx") / replies


DERIVED = {
    "reply_rate": reply_rate,
    # "*" when reply_rate is replies / test duration (no 5-s sample), else "".
    "reply_rate_mark": lambda d: "" if (pointer(d, "/reply_rate/samples") or 0) > 0 else "*",
    "ok_reply_rate": ok_reply_rate,
    # The client's CPU time over the run: user + system seconds.
    "cpu_s": lambda d: pointer(d, "/cpu/user_s") + pointer(d, "/cpu/system_s"),
}

FIELD = re.compile(r"\{([/\w.-]+)(?::([^{}]*))?\}")


def value(doc, name):
    if not name.startswith("/") and name not in DERIVED:
        sys.exit("results.py: no figure named '%s' (a JSON pointer starts with /)" % name)
    try:
        return DERIVED[name](doc) if name in DERIVED else pointer(doc, name)
    except (TypeError, ZeroDivisionError):
        return None


def fill(doc, template, literal):
    """The template with each field's value: formatted text, or a Python literal (literal)."""
    def one(match):
        v = value(doc, match.group(1))
        if literal:
            return repr(v)
        if v is None:
            return "?"
        try:
            return format(v, match.group(2) or "")
        except ValueError:  # a spec for numbers, and a value that is not one
            return str(v)
    return FIELD.sub(one, template)


def evaluate(doc, expression):
    try:
        return eval("(" + fill(doc, expression, True) + ")", {"__builtins__": {}}, {})
    except (TypeError, ZeroDivisionError):
        return None


# httperf's report lines (rateperf prints the same ones): label, then "word number" pairs, each
# pair's word mapped to a field. wrk's figures kept are its request rate and requests.
HTTPERF = [
    ("Total: connections", "/totals/", {"connections": "connections", "requests": "requests",
                                        "replies": "replies", "test-duration": "duration_s"}),
    ("Connection rate:", "/connection_rate/", {"rate:": "per_s"}),
    ("Connection time [ms]: min", "/connection_time/", {"min": "min_ms", "avg": "avg_ms",
                                                        "max": "max_ms", "median": "median_ms"}),
    ("Request rate:", "/request_rate/", {"rate:": "per_s"}),
    ("Reply rate [replies/s]:", "/reply_rate/", {"min": "min_per_s", "avg": "avg_per_s",
                                                 "max": "max_per_s", "stddev": "stddev_per_s",
                                                 "(": "samples"}),
    ("Reply time [ms]:", "/reply_time/", {"response": "response_ms", "transfer": "transfer_ms"}),
    ("Net I/O:", "/net_io/", {"I/O:": "kb_per_s"}),
    ("Errors: total", "/errors/", {"total": "total", "client-timo": "client_timo",
                                   "socket-timo": "socket_timo", "connrefused": "connrefused",
                                   "connreset": "connreset"}),
    ("Errors: fd-unavail", "/errors/", {"fd-unavail": "fd_unavail", "addrunavail": "addrunavail",
                                        "ftab-full": "ftab_full", "other": "other"}),
]


def put(doc, path, v):
    *parents, last = path.strip("/").split("/")
    for key in parents:
        doc = doc.setdefault(key, {})
    doc[last] = v


def number(word):
    """The number a report word holds (int or float), or None: "0.200", "77.6%)", "(0"."""
    m = re.match(r"^\(?(-?[0-9]+)(\.[0-9]*)?%?\)?,?$", word)
    return None if not m else float(m.group(1) + m.group(2)) if m.group(2) else int(m.group(1))


def from_text(tool, text):
    doc = {"tool": tool}
    for line in text.splitlines():
        if tool == "wrk" and line.startswith("Requests/sec:"):
            put(doc, "/request_rate/per_s", number(line.split()[1]))
        m = re.match(r"\s*([0-9]+) requests in ", line)
        if tool == "wrk" and m:
            put(doc, "/totals/requests", int(m.group(1)))
        for label, prefix, names in HTTPERF if tool == "httperf" else []:
            if line.startswith(label):
                words = line.replace("(", "( ").split()
                for word, next_word in zip(words, words[1:]):
                    if word in names and number(next_word) is not None:
                        put(doc, prefix + names[word], number(next_word))
        if tool == "httperf" and line.startswith("Reply status:"):
            for cls, n in re.findall(r"(\dxx)=(\d+)", line):
                put(doc, "/reply_status/" + cls, int(n))
        # CPU seconds from the percentages x test-duration: more digits than "user 0.02".
        m = re.match(r"CPU time \[s\]:.*\(user ([0-9.]+)% system ([0-9.]+)% total ([0-9.]+)%", line)
        if tool == "httperf" and m:
            duration = pointer(doc, "/totals/duration_s") or 0
            user, system, total = (float(x) for x in m.groups())
            doc["cpu"] = {"user_percent": user, "system_percent": system, "total_percent": total,
                          "user_s": user * duration / 100, "system_s": system * duration / 100}
    return doc


def main(argv):
    command = argv[1]
    if command == "from-text":
        with open(argv[3], errors="replace") as text, open(argv[4], "w") as out:
            json.dump(from_text(argv[2], text.read()), out, sort_keys=True)
        return 0
    doc = load(argv[2])
    if command == "get":
        print(fill(doc, argv[3], False))
    elif command == "calc":
        v = evaluate(doc, argv[4])
        print("?" if v is None else format(v, argv[3]))
    elif command == "true":
        return 0 if evaluate(doc, argv[3]) is True else 1
    else:
        print("results.py: unknown command " + command, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
