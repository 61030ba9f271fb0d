# Figures of a run, read from rateperf's --json document (fields: docs/json.md), never from its
# text report; sourced. httperf and wrk write no JSON: result_from_text turns their text into a
# document with the same field names, so that everything after it reads JSON alone.
#
# A FIELD is a JSON pointer (/errors/total, /reply_status/2xx, /latency_intended/p90_ms) or a
# derived figure: reply_rate (the 5-s samples' average, or replies / test duration for a run
# shorter than 5 s), reply_rate_mark ("*" for the latter), ok_reply_rate (reply_rate counting
# 2xx replies only) and cpu_s (user + system seconds). Written {FIELD} or {FIELD:SPEC} with a
# Python format spec such as .1f, which gives what the text report's printf("%.1f") prints.
# A field the document lacks reads as "?". In place of JSON, JSON#POINTER reads the part of the
# document at POINTER as a run's: a search's step, e.g. search.json#/steps/0/run.
# shellcheck shell=bash

results_py=$(dirname "${BASH_SOURCE[0]}")/results.py
# Debian's interpreter where there is one: it starts in about 30 ms, and the scripts ask it for
# figures after every run, while a python3 found first on PATH may be a wrapper (pyenv's shims
# take ten times as long).
results_python=python3
[[ -x /usr/bin/python3 ]] && results_python=/usr/bin/python3

# result_get JSON TEMPLATE: prints TEMPLATE with its fields filled in, e.g.
#   result_get run.json '| {/reply_rate/avg_per_s:.1f} | {/errors/total} |'
result_get() { "$results_python" "$results_py" get "$1" "$2"; }

# result_calc JSON SPEC EXPRESSION: prints a Python expression over fields, formatted with SPEC
# ("?" when a field is missing or it divides by zero), e.g.
#   result_calc run.json .3f '{cpu_s} / {/totals/connections} * 1e6'
result_calc() { "$results_python" "$results_py" calc "$1" "$2" "$3"; }

# result_true JSON EXPRESSION: true when the Python expression over fields holds, e.g.
#   result_true run.json '{/errors/total} == 0 and {/totals/replies} > 0'
result_true() { "$results_python" "$results_py" true "$1" "$2"; }

# result_from_text TOOL TEXT JSON: writes JSON with the figures of TEXT, the output of TOOL:
# httperf (its report lines: totals, connection, request and reply rates, reply and connection
# times, status classes, CPU, Net I/O, errors) or wrk (its request rate, /request_rate/per_s, and
# its requests, /totals/requests).
result_from_text() { "$results_python" "$results_py" from-text "$1" "$2" "$3"; }
