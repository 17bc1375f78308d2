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
