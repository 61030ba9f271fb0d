#!/usr/bin/env python3
"""Reply times on the wire against rateperf's, connection by connection, as one JSON document
on stdout (read with scripts/lib/results.sh):

  wire_times.py PCAP PORT CALL_LOG

PCAP is a tcpdump capture on loopback of the traffic to and from the server's PORT, CALL_LOG
rateperf's --call-log of the same run (one connection, one call each). For each connection (by
the client's port) the wire gives the time its request's first data packet went out, and the
times of the first and the last data packets of the reply; the call log gives rateperf's by the
kernel's timestamps and by its own reads. Two figures per connection:

  response   request sent -> first reply byte
  total      request sent -> last reply byte

  /matched                        connections found in both
  /wire|kernel|user/response_p50_ms, _p99_ms, /total_p50_ms, _p99_ms
                                  each source's percentiles of the figures
  /error/kernel|user/response_p50_us, _p99_us, /total_p50_us, _p99_us
                                  percentiles over the connections of |rateperf - wire|
  /error/kernel|user/total_median_signed_us
                                  the median of rateperf - wire (its sign: late or early)
"""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from syn_gaps import LINK_HEADER, packets  # noqa: E402


def percentile(values, p):
    if not values:
        return None
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, int(round(p / 100 * len(ordered) + 0.5)) - 1))
    return ordered[rank]


def wire_connections(path, port):
    """client port -> [request sent, first reply byte, last reply byte] in ns (None: not seen)."""
    link, records = packets(path)
    skip = LINK_HEADER.get(link)
    if skip is None:
        sys.exit("wire_times.py: link type %d not handled" % link)
    conns = {}
    for t, frame in records:
        ip = frame[skip:]
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
            continue
        ihl = (ip[0] & 15) * 4
        total = int.from_bytes(ip[2:4], "big")
        tcp = ip[ihl:]
        if len(tcp) < 20:
            continue
        sport = int.from_bytes(tcp[0:2], "big")
        dport = int.from_bytes(tcp[2:4], "big")
        payload = total - ihl - (tcp[12] >> 4) * 4
        if payload <= 0:
            continue
        if dport == port:
            times = conns.setdefault(sport, [None, None, None])
            if times[0] is None:
                times[0] = t
        elif sport == port:
            times = conns.setdefault(dport, [None, None, None])
            if times[1] is None:
                times[1] = t
            times[2] = t
    return conns


def ns(text):
    if not text:
        return None
    seconds, _, fraction = text.partition(".")
    return int(seconds) * 10**9 + int((fraction + "000000000")[:9])


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: wire_times.py PCAP PORT CALL_LOG")
    wire = wire_connections(sys.argv[1], int(sys.argv[2]))
    seen, rows = set(), {}
    with open(sys.argv[3], newline="") as f:
        for row in csv.DictReader(f):
            port = int(row["port"])
            if port in seen:  # a port used twice in the run: its packets cannot be told apart
                rows.pop(port, None)
                continue
            seen.add(port)
            rows[port] = row
    figures = {source: {"response": [], "total": []} for source in ("wire", "kernel", "user")}
    errors = {source: {"response": [], "total": []} for source in ("kernel", "user")}
    signed = {"kernel": [], "user": []}
    matched = 0
    for port, row in rows.items():
        w = wire.get(port)
        if w is None or None in w:
            continue
        send_k, first_k, last_k = ns(row["send_kernel"]), ns(row["first_byte_kernel"]), ns(row["last_byte_kernel"])
        send_u, first_u, last_u = ns(row["send"]), ns(row["first_byte"]), ns(row["last_byte"])
        if None in (send_k, first_k, last_k, send_u, first_u, last_u):
            continue
        matched += 1
        mine = {"wire": (w[1] - w[0], w[2] - w[0]),
                "kernel": (first_k - send_k, last_k - send_k),
                "user": (first_u - send_u, last_u - send_u)}
        for source, (response, total) in mine.items():
            figures[source]["response"].append(response)
            figures[source]["total"].append(total)
        for source in ("kernel", "user"):
            errors[source]["response"].append(abs(mine[source][0] - mine["wire"][0]))
            errors[source]["total"].append(abs(mine[source][1] - mine["wire"][1]))
            signed[source].append(mine[source][1] - mine["wire"][1])
    doc = {"matched": matched, "error": {}}
    for source, by_figure in figures.items():
        doc[source] = {}
        for figure, values in by_figure.items():
            for p in (50, 99):
                value = percentile(values, p)
                doc[source]["%s_p%d_ms" % (figure, p)] = None if value is None else value / 1e6
    for source, by_figure in errors.items():
        doc["error"][source] = {}
        for figure, values in by_figure.items():
            for p in (50, 99):
                value = percentile(values, p)
                doc["error"][source]["%s_p%d_us" % (figure, p)] = None if value is None else value / 1e3
        value = percentile(signed[source], 50)
        doc["error"][source]["total_median_signed_us"] = None if value is None else value / 1e3
    json.dump(doc, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
