#!/usr/bin/env python3
"""Ask on questions about how two things differ (tests/eval/data/own/qa_bn_differences.jsonl):
how many answers open with the book's comparison table, and how many key facts the opening, and
the opening with the quote, hold (lexically: 70 % of a fact's words, by their first letters, as a
crude Bangla stem). Reads two `index-builder ask --sources-only --json` outputs, before and after.

    index-builder ask --bundle allbn.bundle --model …0.5b… --sources-only --json \
      --queries tests/eval/data/own/qa_bn_differences.jsonl > after.jsonl
    python3 tests/eval/differences_eval.py before.jsonl after.jsonl
"""
import json,re,sys
qs={}
import os
for l in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'own', 'qa_bn_differences.jsonl')):
    d=json.loads(l); qs[d['id']]=d
def words(t):
    return [w for w in re.split(r'[\s,;:।.()\[\]—\-–?!"“”\'|/]+', t.lower()) if w]
def held(fact, text):
    tw=words(text); fw=[w for w in words(fact) if len(w)>=2]
    if not fw: return False
    def has(w):
        k=max(2,len(w)-3) if len(w)>4 else len(w)
        return any(x.startswith(w[:k]) for x in tw)
    return sum(has(w) for w in fw)/len(fw) >= 0.7
def run(f):
    res={}
    for l in open(f):
        d=json.loads(l); q=qs[d['id']]
        lead=d.get('lead') or ''; quote=(d.get('quote') or {}).get('text','') if isinstance(d.get('quote'),dict) else (d.get('quote') or '')
        rows=lead.count(' — ')//2
        facts=q['key_facts']
        res[d['id']]=dict(abst=d['abstained'], rows=rows, lead_facts=sum(held(k,lead) for k in facts), shown_facts=sum(held(k,lead+' '+quote) for k in facts), nf=len(facts), gold=any(q['gold_heading'] in (s.get('heading_path') or [''])[-1] for s in (d.get('sources') or [])), tokens=d.get('prompt_tokens'))
    return res
if len(sys.argv) != 3:
    sys.exit(__doc__)
old=run(sys.argv[1]); new=run(sys.argv[2])
def summary(r, ids):
    n=len(ids); nf=sum(r[i]['nf'] for i in ids)
    return dict(n=n, refused=sum(r[i]['abst'] for i in ids), with_rows=sum(r[i]['rows']>0 for i in ids), gold_in_sources=sum(r[i]['gold'] for i in ids), facts=nf, facts_in_opening=sum(r[i]['lead_facts'] for i in ids), facts_in_opening_or_quote=sum(r[i]['shown_facts'] for i in ids))
for name,sel in [('all',lambda q: True),('table',lambda q:q['table']),('no table',lambda q: not q['table'])]:
    ids=[i for i in qs if sel(qs[i])]
    print(name, 'old', summary(old,ids)); print(name, 'new', summary(new,ids))
for i in qs:
    if new[i]['rows']>0: print(i, qs[i]['kind'], qs[i]['table'], 'rows', new[i]['rows'], 'gold', new[i]['gold'], 'facts', old[i]['lead_facts'], '->', new[i]['lead_facts'], '/', new[i]['nf'], 'tokens', old[i]['tokens'], '->', new[i]['tokens'])
