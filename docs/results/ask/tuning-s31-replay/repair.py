import json, re, sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from repair_lib import terms, prose
def kept(s):
    m=s.get("margin"); l=s.get("lexical",0)
    if s.get("repeated"): return False
    if m is None: return False
    return l>=0.34 and m+3*l>=3
def strip(t): return re.sub(r"\s*\[\d+(,\s*\d+)*\]", "", t).strip()
def main(path, out, tau, mode):
    res=[]
    for l in open(path):
        a=json.loads(l)
        if a.get("error") or not a.get("sentences"): res.append(a); continue
        srcs={s["n"]:prose(s["text"]) for s in a["sources"]}
        quote=a["quote"]["text"] if a.get("quote") else ""
        seen=[terms(quote)] if quote else []
        shown=[]; used=set()
        for s in a["sentences"]:
            if kept(s) and mode!="all":
                shown.append(s["text"]); seen.append(terms(s["text"])); continue
            if mode=="none": continue
            if s.get("repeated"): continue
            u=terms(strip(s["text"]))
            if len(u)<3: continue
            best=None
            for n,sents in srcs.items():
                for x in sents:
                    tx=terms(x); sh=len(u&tx)/len(u)
                    if best is None or sh>best[0]: best=(sh,n,x)
            if best and best[0]>=tau and best[2] not in used:
                tx=terms(best[2])
                # a repeat: adds nothing not already shown
                if any(len(tx-e)==0 for e in seen): continue
                used.add(best[2]); seen.append(tx)
                body=best[2].rstrip()
                shown.append(f"{body} [{best[1]}]" if not body.endswith(('.',':','?','!')) else f"{body[:-1]} [{best[1]}]{body[-1]}")
        a=dict(a)
        a["answer"]=" ".join(shown) if shown else None
        a["abstained"]= not shown
        res.append(a)
    with open(out,"w") as f:
        for a in res: f.write(json.dumps(a, ensure_ascii=False)+"\n")
    n=sum(1 for a in res if not a["abstained"])
    print(out, "answered", n, "of", len(res))
main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4])
