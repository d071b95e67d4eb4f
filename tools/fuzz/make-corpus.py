#!/usr/bin/env python3
"""Writes the fuzz targets' seed corpus from recordings.

  make-corpus.py OUTDIR RECORDING...

For each recording: OUTDIR/recording_fuzzer/<name> (a recording file) and
OUTDIR/chunks_fuzzer/<name> (the same chunks as chunks_fuzzer's input: an
options byte, then u8 type, u24 length, payload).
RECORDS are cut, at a record boundary, to the first KEEP bytes of records (the
rest of the chunks are kept whole), so seeds stay small. The CRCs are
recomputed (format 2, CRC-32C), so a damaged source gives intact seeds.
"""
import os
import struct
import sys

KEEP = 16 << 10  # bytes of records kept per recording


def crc32c(data, crc=0):
    crc ^= 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def chunks(path):
    data = open(path, "rb").read()
    assert data[:8] == b"IOLENSRC", path + ": not a recording"
    at = struct.unpack_from("<I", data, 12)[0]
    while at + 16 <= len(data):
        magic, ctype, size, _ = struct.unpack_from("<IIII", data, at)
        if magic != 0x4B4E4843 or at + 16 + size > len(data):
            break
        yield ctype, data[at + 16:at + 16 + size]
        at += 16 + size


def whole_records(payload, budget):
    """The longest prefix of whole records (u16 type, u16 size) within budget."""
    at = 0
    while at + 4 <= len(payload):
        size = struct.unpack_from("<HH", payload, at)[1]
        if size < 4 or at + size > len(payload) or at + size > budget:
            break
        at += size
    return payload[:at]


def main():
    out, sources = sys.argv[1], sys.argv[2:]
    for sub in ("recording_fuzzer", "chunks_fuzzer"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    for src in sources:
        name = os.path.basename(src).rsplit(".", 1)[0]
        kept, budget = [], KEEP
        for ctype, payload in chunks(src):
            if ctype == 2:
                payload = whole_records(payload, budget)
                budget -= len(payload)
                if not payload:
                    continue
            kept.append((ctype, payload))
        header = b"IOLENSRC" + struct.pack("<IIQQ", 2, 64, 1, 0) + bytes(32)
        with open(os.path.join(out, "recording_fuzzer", name), "wb") as f:
            f.write(header)
            for ctype, payload in kept:
                fields = struct.pack("<II", ctype, len(payload))
                crc = crc32c(payload, crc32c(fields))
                f.write(struct.pack("<I", 0x4B4E4843) + fields + struct.pack("<I", crc) + payload)
        with open(os.path.join(out, "chunks_fuzzer", name), "wb") as f:
            f.write(bytes([0]))
            for ctype, payload in kept:
                f.write(bytes([ctype]) + struct.pack("<I", len(payload))[:3] + payload)


main()
