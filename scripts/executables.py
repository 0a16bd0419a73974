"""Reads cargo's JSON messages (`--message-format=json`) on stdin and prints a line
`KIND NAME PATH` for each test or bench executable built (the GPU scripts copy them)."""
import json
import sys

for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["target"]["kind"][0], m["target"]["name"], m["executable"])
