#!/usr/bin/env python3
"""The gaps between a client's successive SYNs on the wire, from a tcpdump capture, as one JSON
document on stdout (read with scripts/lib/results.sh, like rateperf's --json):

  syn_gaps.py PCAP PORT NOMINAL_GAP_US [TCPDUMP_LOG]

PCAP holds the SYNs (SYN without ACK) sent to PORT; a retransmitted SYN (the same source port
and sequence number again) is left out, so that each connection counts once, at its first SYN.
TCPDUMP_LOG, tcpdump's stderr, gives the packets the kernel dropped.

  /syns                 connections seen (first SYNs)
  /retransmits          SYNs left out as retransmissions
  /dropped              packets tcpdump reports dropped by the kernel (null without the log)
  /nominal_gap_us       the gap the schedule means between arrivals (1e6 / rate)
  /share_within_10pct   gaps within 10 % of the nominal gap / gaps
  /mad_us               median of |gap - nominal gap|: the median absolute deviation from it
  /mean_gap_us, /median_gap_us, /stddev_gap_us
  /cv                   stddev / mean of the gaps (1 for Poisson arrivals, 0 for a fixed gap)
  /wire_rate_per_s      (syns - 1) / (last SYN - first SYN)
"""
import json
import re
import statistics
import struct
import sys

# Link-layer header lengths of the pcap link types tcpdump writes for a capture on loopback.
LINK_HEADER = {1: 14, 0: 4, 113: 16, 276: 20, 101: 0, 228: 0}


def packets(path):
    """(time in ns, frame) of every record of a classic pcap file, and its link type. Integer
    nanoseconds: a double holds seconds since 1970 to a quarter of a microsecond only."""
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    formats = {b"\xd4\xc3\xb2\xa1": ("<", 1000), b"\xa1\xb2\xc3\xd4": (">", 1000),
               b"\x4d\x3c\xb2\xa1": ("<", 1), b"\xa1\xb2\x3c\x4d": (">", 1)}
    if magic not in formats:
        sys.exit("syn_gaps.py: %s is not a pcap file" % path)
    endian, unit = formats[magic]
    link = struct.unpack(endian + "I", data[20:24])[0] & 0x0FFFFFFF
    records, offset = [], 24
    while offset + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack(endian + "IIII", data[offset:offset + 16])
        records.append((sec * 10**9 + frac * unit, data[offset + 16:offset + 16 + caplen]))
        offset += 16 + caplen
    return link, records


def first_syns(path, port):
    """The time [ns] of each connection's first SYN to port, in order, and the retransmissions."""
    link, records = packets(path)
    skip = LINK_HEADER.get(link)
    if skip is None:
        sys.exit("syn_gaps.py: link type %d not handled" % link)
    seen, times, retransmits = set(), [], 0
    for t, frame in records:
        ip = frame[skip:]
        if len(ip) < 20 or ip[0] >> 4 != 4 or ip[9] != 6:
            continue
        tcp = ip[(ip[0] & 0x0F) * 4:]
        if len(tcp) < 14:
            continue
        sport, dport, seq = struct.unpack("!HHI", tcp[:8])
        if dport != port or tcp[13] & 0x12 != 0x02:
            continue
        if (sport, seq) in seen:
            retransmits += 1
            continue
        seen.add((sport, seq))
        times.append(t)
    return sorted(times), retransmits


def dropped(log):
    try:
        with open(log, errors="replace") as f:
            m = re.search(r"(\d+) packets? dropped by kernel", f.read())
        return int(m.group(1)) if m else None
    except OSError:
        return None


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit(__doc__)
    times, retransmits = first_syns(argv[1], int(argv[2]))
    nominal = float(argv[3])
    gaps = [(b - a) / 1e3 for a, b in zip(times, times[1:])]
    doc = {"syns": len(times), "retransmits": retransmits,
           "dropped": dropped(argv[4]) if len(argv) == 5 else None,
           "nominal_gap_us": nominal}
    if len(gaps) >= 2:
        mean = statistics.fmean(gaps)
        deviations = [abs(g - nominal) for g in gaps]
        doc.update({
            "share_within_10pct": sum(d <= 0.1 * nominal for d in deviations) / len(gaps),
            "mad_us": statistics.median(deviations),
            "mean_gap_us": mean,
            "median_gap_us": statistics.median(gaps),
            "stddev_gap_us": statistics.stdev(gaps),
            "cv": statistics.stdev(gaps) / mean if mean > 0 else None,
            "wire_rate_per_s": (len(times) - 1) * 1e9 / (times[-1] - times[0])
                               if times[-1] > times[0] else None,
        })
    json.dump(doc, sys.stdout, sort_keys=True)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
