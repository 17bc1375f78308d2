import json,sys
# usage: combine.py S31DIR NEWQUOTE.jsonl
d,newf=sys.argv[1],sys.argv[2]
ans={json.loads(l)['id']:json.loads(l) for l in open(f'{d}/answers-grounded.jsonl')}
v={}
for l in open(f'{d}/judge-pairs.jsonl'):
    x=json.loads(l); v[x['id']]=x['judge_yes']
new={json.loads(l)['id']:json.loads(l) for l in open(newf)}
same=agree=tot=changed=0; rq=[];rr=[];ra=[];rqo=[]
for k,r in new.items():
    a=ans[k]; n=len(r['facts'])
    oq=(a.get('quote') or {}).get('text')
    fa=[bool(v.get(f'grounded:{k}:fact:{i}')) for i in range(n)]
    fq=[bool(f['judged']) for f in r['facts']]
    fqo=[bool(v.get(f'grounded:{k}:quotefact:{i}')) for i in range(n)]
    if oq==r['quote']:
        same+=1; tot+=n; agree+=sum(x==y for x,y in zip(fq,fqo))
    else: changed+=1
    rq.append(sum(fq)/n); rqo.append(sum(fqo)/n); ra.append(sum(fa)/n); rr.append(sum(x or y for x,y in zip(fa,fq))/n)
m=lambda x: round(sum(x)/len(x),3)
print(f'questions {len(new)} quotes changed {changed}; verdicts on unchanged quotes agree {agree}/{tot}')
print('quote old',m(rqo),'new',m(rq),'answer',m(ra),'answer-or-quote new',m(rr))
