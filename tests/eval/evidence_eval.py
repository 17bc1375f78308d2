#!/usr/bin/env python3
"""How much of each answer's key facts the evidence Ask gives its model holds (Ask's evidence
stage alone, no answer written).

    python3 tests/eval/evidence_eval.py --bundle python-docs.bundle --model M.gguf \
        [--set own-tuning|own-heldout|dev] [--judge J.gguf] [--ask-arg=--passages=4 ...] [--out F.jsonl]

`index-builder ask --sources-only --json` builds each in-corpus question's prompt with the app's
defaults (or the `--ask-arg` settings) and lists the passages the model would read; the model
reads nothing. Then, per key fact:
  - lexical: the share of the fact's content words (stop words out, first five letters of each)
    found in the passages; a fact counts as held at 0.75 or more (and the same in the book quote
    shown above the answer, `facts_in_quote_lexical`; in the book's sentences that open the
    answer, `facts_in_lead_lexical`; in either, `facts_in_lead_or_quote_lexical`; openings
    that cite the gold section, `leads_citing_gold`);
  - with --judge: does a passage state the fact (`index-builder judge`, kind `fact`, the same
    question and threshold as answer_eval.py's key-fact recall; the judge reads the 400
    characters of each passage nearest the fact); held when any passage does;
  - with --judge and --quote: does the book quote Ask shows above the answer state it (the
    passages are not judged then).
Reported: facts held (lexical, and judged), gold section among the passages, passage characters
and prompt tokens (medians). An answer cannot state more of the key facts than its evidence holds,
so this is the ceiling of Ask's key-fact recall for those passages.
"""
import argparse
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from answer_eval import content, is_hit, load_set, run_jsonl  # noqa: E402

def lexical(fact, passages):
    want = content(fact)
    if not want:
        return 1.0
    have = set().union(*(content(p) for p in passages)) if passages else set()
    return len(want & have) / len(want)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--model", required=True, help="the course model (its tokenizer fits the prompt)")
    ap.add_argument("--set", default="own-tuning")
    ap.add_argument("--judge", help="judge model: also ask it whether a passage states each fact")
    ap.add_argument("--quote", action="store_true", help="with --judge: judge the book quote instead of the passages")
    ap.add_argument("--ask-arg", action="append", default=[], help="extra argument for index-builder ask")
    ap.add_argument("--index-builder", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", "target"), "release", "index-builder"))
    ap.add_argument("--data", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    ap.add_argument("--out", help="write one line per question (passages, facts held) here")
    ap.add_argument("--min-held", type=float, default=None, help="exit 1 if the share of facts held (lexical) is lower")
    a = ap.parse_args()
    for path in (a.bundle, a.model, a.index_builder) + ((a.judge,) if a.judge else ()):
        if not os.path.exists(path):
            sys.exit(f"missing input: {path}")
    qa, _ = load_set(a.set, a.data)
    extra = ["--sources-only", *a.ask_arg]
    res = run_jsonl(lambda p: [a.index_builder, "ask", "--bundle", a.bundle, "--model", a.model, "--queries", p, "--json", *extra],
                    [{"id": q["id"], "question": q["question"]} for q in qa])
    by_id = {r["id"]: r for r in res}
    rows, pairs = [], []
    for q in qa:
        r = by_id[q["id"]]
        texts = [s.get("text") or "" for s in r.get("sources", [])]
        row = {"id": q["id"], "gold_in_passages": any(is_hit(s, q) for s in r.get("sources", [])),
               "passage_chars": sum(len(t) for t in texts), "prompt_tokens": r.get("prompt_tokens", 0),
               "abstain_reason": r.get("abstain_reason"), "facts": []}
        quote = (r.get("quote") or {}).get("text")
        lead = r.get("lead")
        row["quote"], row["lead"] = quote, lead
        # Does the opening cite the gold section (its `[n]` markers, 1-based into the sources)?
        sources = r.get("sources", [])
        cited = {int(n) for n in re.findall(r"\[(\d+)\]", lead or "") if 0 < int(n) <= len(sources)}
        row["lead_cites_gold"] = any(is_hit(sources[n - 1], q) for n in cited)
        for k, fact in enumerate(q["key_facts"]):
            row["facts"].append({"fact": fact, "lexical": lexical(fact, texts), "quote_lexical": lexical(fact, [quote] if quote else []),
                                 "lead_lexical": lexical(fact, [lead] if lead else []),
                                 "read_lexical": lexical(fact, [x for x in (lead, quote) if x])})
            for n, t in enumerate([quote] if a.quote else texts):
                if t:
                    pairs.append({"id": f"{q['id']}:{k}:{n}", "kind": "fact", "text": t, "claim": fact})
        rows.append(row)
    if a.judge and pairs:
        verdicts = run_jsonl(lambda p: [a.index_builder, "judge", "--model", a.judge, "--pairs", p], pairs)
        yes = {}
        for v in verdicts:
            qid, k, _ = v["id"].rsplit(":", 2)
            yes[(qid, int(k))] = yes.get((qid, int(k)), False) or v["yes"]
        for row in rows:
            for k, f in enumerate(row["facts"]):
                f["judged"] = yes.get((row["id"], k), False)
    facts = [f for r in rows for f in r["facts"]]
    answered = [r for r in rows if r["abstain_reason"] is None]
    report = {
        "set": a.set, "ask_args": a.ask_arg, "questions": len(rows), "facts": len(facts),
        "refused": len(rows) - len(answered),
        "facts_held_lexical": round(sum(f["lexical"] >= 0.75 for f in facts) / max(1, len(facts)), 3),
        "facts_in_quote_lexical": round(sum(f["quote_lexical"] >= 0.75 for f in facts) / max(1, len(facts)), 3),
        "facts_in_lead_lexical": round(sum(f["lead_lexical"] >= 0.75 for f in facts) / max(1, len(facts)), 3),
        "facts_in_lead_or_quote_lexical": round(sum(f["read_lexical"] >= 0.75 for f in facts) / max(1, len(facts)), 3),
        "leads": sum(r["lead"] is not None for r in rows),
        "leads_citing_gold": sum(r["lead_cites_gold"] for r in rows),
        "median_quote_chars_all": statistics.median(len(r["quote"] or "") for r in rows) if rows else 0,
        "gold_in_passages": sum(r["gold_in_passages"] for r in rows),
        "median_passage_chars": statistics.median(r["passage_chars"] for r in answered) if answered else 0,
        "median_prompt_tokens": statistics.median(r["prompt_tokens"] for r in answered) if answered else 0,
    }
    if a.judge:
        name = "facts_in_quote_judged" if a.quote else "facts_held_judged"
        report[name] = round(sum(f.get("judged", False) for f in facts) / max(1, len(facts)), 3)
        if a.quote:
            report["median_quote_chars"] = statistics.median(len(r["quote"] or "") for r in rows)
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(json.dumps(report, indent=1))
    if len(by_id) != len(qa) or any("error" in r for r in res):
        sys.exit(f"index-builder ask answered {len(by_id)} of {len(qa)} questions or reported an error")
    if a.min_held is not None and report["facts_held_lexical"] < a.min_held:
        sys.exit(f"facts held {report['facts_held_lexical']} < {a.min_held}")


if __name__ == "__main__":
    main()
