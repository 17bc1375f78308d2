import json, sys, subprocess, os, tempfile
import os
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../..')
sys.path.insert(0, os.path.join(ROOT, "tests/eval"))
from answer_eval import load_set
qa, _ = load_set("own-tuning", os.path.join(ROOT, "tests/eval/data"))
variants = sys.argv[2:]
judge = sys.argv[1]
pairs = {}
for v in variants:
    ans = {json.loads(l)["id"]: json.loads(l) for l in open(v)}
    for q in qa:
        a = ans[q["id"]]
        if a.get("abstained") or not a.get("answer"): continue
        for i, f in enumerate(q["key_facts"]):
            pairs.setdefault((a["answer"], f), len(pairs))
print(len(pairs), "unique pairs", file=sys.stderr)
ib = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target")), "release", "index-builder")
with open("pairs.jsonl", "w") as f:
    for (t, c), i in pairs.items():
        f.write(json.dumps({"id": i, "kind": "fact", "text": t, "claim": c}) + "\n")
out = subprocess.run([ib, "judge", "--model", judge, "--pairs", "pairs.jsonl"], capture_output=True, text=True)
if out.returncode: sys.exit(out.stderr[-2000:])
yes = {j["id"]: j["yes"] for j in map(json.loads, out.stdout.splitlines()) if j}
json.dump({f"{t}\x00{c}": yes[i] for (t, c), i in pairs.items()}, open("verdicts.json", "w"))
for v in variants:
    ans = {json.loads(l)["id"]: json.loads(l) for l in open(v)}
    rec = []
    for q in qa:
        a = ans[q["id"]]
        if a.get("abstained") or not a.get("answer"): rec.append(0); continue
        rec.append(sum(yes[pairs[(a["answer"], f)]] for f in q["key_facts"]) / len(q["key_facts"]))
    print(v, "recall %.3f" % (sum(rec) / len(rec)), "answered", sum(1 for q in qa if not ans[q["id"]].get("abstained")))
