import json, sys, re, math
import os
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '../../../..')
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repair_lib import terms, prose
sys.path.insert(0, os.path.join(ROOT, "tests/eval"))
from answer_eval import load_set
qa, _ = load_set("own-tuning", os.path.join(ROOT, "tests/eval/data"))
Q = {q["id"]: q["question"] for q in qa}
path, out, budget = sys.argv[1], sys.argv[2], int(sys.argv[3])
# document frequency over all passages of the run, as a stand-in for IDF
docs = []
rows = [json.loads(l) for l in open(path)]
for a in rows:
    for s in a.get("sources", []): docs.append(terms(s["text"]))
N = len(docs)
def idf(t): 
    df = sum(1 for d in docs if t in d)
    return math.log(1 + N / (1 + df))
res = []
for a in rows:
    q = terms(Q[a["id"]])
    cands = []
    for rank, s in enumerate(a.get("sources", [])):
        for i, x in enumerate(prose(s["text"])):
            ov = sum(idf(t) for t in terms(x) & q)
            if ov > 0: cands.append((ov / (1 + rank), rank, i, s["n"], x))
    cands.sort(key=lambda c: -c[0])
    pick, used = [], 0
    for c in cands:
        if used + len(c[4]) > budget and pick: continue
        if used + len(c[4]) > budget: continue
        pick.append(c); used += len(c[4]) + 1
    pick.sort(key=lambda c: (c[1], c[2]))
    a = dict(a)
    a["answer"] = " ".join(f"{c[4]} [{c[3]}]" for c in pick) or None
    a["abstained"] = not pick
    res.append(a)
with open(out, "w") as f:
    for a in res: f.write(json.dumps(a, ensure_ascii=False) + "\n")
print(out, sum(1 for a in res if not a["abstained"]))
