import json, re, sys, math
STOP = set("""a an the and or but if then else of to in on at by for with from as is are was were be been being it its this that these those
there here which who whom what when where why how do does did done can could should would will shall may might must not no yes so than too very
you your we our they their he she his her i me my mine us them also just only any all some each every more most other such into out up down
about over under again further once same own both few nor off per via i.e e.g etc use used using get gets make makes one two""".split())
def terms(t):
    ws = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", t.lower())
    out = set()
    for w in ws:
        for p in [w] + [x for x in re.split(r"[._]", w) if x]:
            if p in STOP or len(p) < 2: continue
            out.add(p[:6])
    return out
def split_sentences(line):
    out=[]; start=0
    for m in re.finditer(r"[.!?](\s+|$)", line):
        seg=line[start:m.end()]
        nxt=line[m.end():m.end()+1]
        if nxt and nxt.islower(): continue
        out.append(seg.strip()); start=m.end()
    if start < len(line): out.append(line[start:].strip())
    return [s for s in out if s]
def prose(src):
    incode=False; res=[]
    for line in src.splitlines():
        t=line.strip()
        if t.startswith("```") or t.startswith(">>>"):
            incode = (not incode) or t.startswith(">>>"); continue
        if incode or line.startswith("    ") or len(t)<25: continue
        for s in split_sentences(t):
            if 25<=len(s)<=400 and len(s.split())>=6: res.append(s)
    return res
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
