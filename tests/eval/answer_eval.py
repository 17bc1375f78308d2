#!/usr/bin/env python3
"""Answer quality of the Ask agent: key-fact recall, faithfulness, citation precision, abstentions, times.

    python3 tests/eval/answer_eval.py --bundle python-docs.bundle --model M.gguf --judge J.gguf \
        [--set dev|own-heldout|own-tuning] [--limit N] [--closed-book] [--out DIR] [--labels L.jsonl]

1. `index-builder ask --queries Q.jsonl --json` answers every question of the set (in-corpus and
   out-of-corpus) with the app's defaults; with --closed-book also without evidence (the baseline).
2. `index-builder judge` (label scoring on the judge model, prompts in index-builder/src/cmd/judge.rs)
   decides, for each in-corpus answer, whether it states each key fact ("fact"), and for each
   sentence of the model's raw answer and of the shown answer whether the passage it cites (uncited:
   all passages) supports it ("support").
3. Figures (in-corpus questions count whether answered or not; an abstention states no fact):
   - key-fact recall: the share of key facts the shown answer states (the book quote excluded);
     also of the quote alone, and of what the student reads: the shown answer or the book's
     quote the app shows above it (also above an answer withheld by the check), each judged on
     its own, and the two judged as one text (quote, then answer: a fact split between them);
   - faithfulness: the share of sentences the judge finds supported, on the raw and the shown answer,
     and the number of answers whose shown text has an unsupported sentence;
   - citation precision: the share of answered questions whose citations include the gold section
     (the hit rule of tests/eval/data/dev/README.md);
   - false abstentions (in-corpus), correct abstentions (out-of-corpus);
   - medians of time to sources, to the answer's first text (its opening from the book, or the
     model's first token), to the model's first token, decode speed.
With --labels (JSONL of {"id", "yes"} written by a person for judge pair ids), the judge's agreement
with those labels is reported; figures count only once it is at least 0.85.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from retrieval_eval import norm_heading, load_jsonl  # noqa: E402


def number(qid):
    return int(qid.rsplit("-", 1)[-1])


def load_set(name, data):
    if name == "dev":
        d = os.path.join(data, "dev")
        qa = load_jsonl(os.path.join(d, "qa_python_faq.jsonl")) + load_jsonl(os.path.join(d, "qa_python_tutorial.jsonl"))
        return qa, load_jsonl(os.path.join(d, "out_of_corpus.jsonl"))
    d = os.path.join(data, "own")
    qa = load_jsonl(os.path.join(d, "qa_tutorial_faq.jsonl")) + load_jsonl(os.path.join(d, "qa_reference_howto.jsonl"))
    ooc = load_jsonl(os.path.join(d, "out_of_corpus.jsonl"))
    want = 1 if name == "own-tuning" else 0
    if name not in ("own-tuning", "own-heldout"):
        sys.exit(f"unknown set {name}; use dev, own-heldout or own-tuning")
    keep = lambda q: number(q["id"]) % 2 == want
    return [q for q in qa if keep(q)], [q for q in ooc if keep(q)]


STOP = set("""a an the of to in on at by for with from and or not no is are was were be been being it its
this that these those as if then than so such can could will would should may might must do does did
done has have had you your i we he she they them their there here what which who whom whose when where why
how all any each every some one two into out up down over under again only same other more most very
just also but about after before while because until use used using get gets""".split())


def content(text):
    """A text's content words, stop words out, each cut to its first five letters."""
    return {w[:5] for w in re.findall(r"[a-z0-9_]+", text.lower()) if w not in STOP and len(w) > 1}


# A key fact counts as stated when the judge says so (`index-builder judge`, margin above its
# `fact` threshold) or when one sentence of the text holds this share of the fact's content
# words. The 1.5B judge says no to facts an answer copies word for word from the book (margins
# 1.5-1.8 on "The given end point is never part of the generated sequence"); with the words
# rule it agrees with the 415 hand labels of the tuning half's answers 0.889, without 0.865
# at best (docs/EVALUATION.md, "The judge on answers that are the book's sentences").
WORDS_STATE_FACT = 0.75


def words_in_one_sentence(text, claim):
    """The largest share of `claim`'s content words that one sentence (or line) of `text` holds."""
    want = content(claim)
    if not want:
        return 0.0
    parts = [x for x in re.split(r"(?<=[.!?])\s+|\n+", text) if x.strip()]
    return max((len(want & content(x)) / len(want) for x in parts), default=0.0)


def verbatim(premise, claim):
    """Whether `claim` (a sentence or a fenced block of an answer, its `[n]` markers out) is the
    passage's own text, word for word: the book supports its own words. The judge reads the
    400 characters of the passage nearest the claim, which cut a code block apart (it said no
    to 16 of the 32 examples shown in session 55's held-out answers, each copied from the
    passage it was judged against)."""
    body = re.sub(r"^```[^\n]*\n|\n?```$", "", claim.strip())
    body = re.sub(r"\s*\[\d+(?:,\s*\d+)*\]", "", body)
    norm = lambda x: " ".join(x.split())
    body = norm(body).rstrip(".:")
    return len(body) >= 20 and body in norm(premise)


def verdict(kind, text, claim, margin, thresholds):
    """The evaluation's verdict on one judged pair: the judge's margin above its threshold; or,
    for a fact, its words in one sentence of the answer; for support, the passage's own words."""
    if margin is not None and margin > thresholds[kind]:
        return True
    if kind == "support":
        return verbatim(text, claim)
    return kind == "fact" and words_in_one_sentence(text, claim) >= WORDS_STATE_FACT


def run_jsonl(cmd, lines):
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False, encoding="utf-8") as f:
        for l in lines:
            f.write(json.dumps(l, ensure_ascii=False) + "\n")
        path = f.name
    try:
        out = subprocess.run(cmd(path), capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"{' '.join(cmd(path))} failed:\n{out.stderr[-3000:]}")
        return [json.loads(l) for l in out.stdout.splitlines() if l.strip()]
    finally:
        os.unlink(path)


def ask(binary, bundle, model, questions, extra):
    res = run_jsonl(lambda p: [binary, "ask", "--bundle", bundle, "--model", model, "--queries", p, "--json", *extra],
                    [{"id": q["id"], "question": q["question"]} for q in questions])
    return {r["id"]: r for r in res}


def is_hit(place, q):
    gold = norm_heading(q["gold_heading"])
    return place["file"] == q["gold_file"] and any(norm_heading(h) == gold for h in place["heading_path"])


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def pairs_for(qa, answers, tag, facts_only=False):
    """Judge pairs: key facts of the shown and of the raw answer, sentences of the raw and shown
    answers (with `facts_only`, the key facts alone)."""
    pairs = []
    for q in qa:
        r = answers[q["id"]]
        if r.get("error"):
            continue
        if not r["abstained"] and r["answer"]:
            for i, fact in enumerate(q["key_facts"]):
                pairs.append({"id": f"{tag}:{q['id']}:fact:{i}", "kind": "fact", "text": r["answer"], "claim": fact})
        if r.get("raw_answer") and r["raw_answer"] != r.get("answer"):
            for i, fact in enumerate(q["key_facts"]):
                pairs.append({"id": f"{tag}:{q['id']}:rawfact:{i}", "kind": "fact", "text": r["raw_answer"], "claim": fact})
        if r.get("quote"):
            for i, fact in enumerate(q["key_facts"]):
                pairs.append({"id": f"{tag}:{q['id']}:quotefact:{i}", "kind": "fact", "text": r["quote"]["text"], "claim": fact})
        # What the student reads as one text: the quote, then the shown answer below it (a fact
        # split between the two is stated by neither alone).
        read = [x for x in ((r.get("quote") or {}).get("text"), None if r["abstained"] else r["answer"]) if x]
        if read:
            for i, fact in enumerate(q["key_facts"]):
                pairs.append({"id": f"{tag}:{q['id']}:readfact:{i}", "kind": "fact", "text": "\n\n".join(read), "claim": fact})
        if facts_only:
            continue
        sources = {s["n"]: s["text"] for s in r["sources"]}
        for j, s in enumerate(r["sentences"]):
            cited = [sources[n] for n in s["cites"] if n in sources] or list(sources.values())
            if not cited:
                continue
            premise = "\n\n".join(cited)
            pairs.append({"id": f"{tag}:{q['id']}:raw:{j}", "kind": "support", "text": premise, "claim": s["text"]})
            if s["supported"] and not r["abstained"]:
                pairs.append({"id": f"{tag}:{q['id']}:shown:{j}", "kind": "support", "text": premise, "claim": s["text"]})
    return pairs


def figures(qa, ooc, answers, verdicts, tag):
    recall, recall_raw, recall_quote, recall_read, raw, shown, bad, cite_ok, answered = [], [], [], [], [], [], 0, 0, 0
    recall_together = []
    for q in qa:
        r = answers[q["id"]]
        facts = [verdicts.get(f"{tag}:{q['id']}:fact:{i}") for i in range(len(q["key_facts"]))]
        if verdicts:
            recall.append(sum(1 for v in facts if v) / len(q["key_facts"]))
            quoted = [verdicts.get(f"{tag}:{q['id']}:quotefact:{i}") for i in range(len(q["key_facts"]))]
            recall_quote.append(sum(1 for v in quoted if v) / len(q["key_facts"]))
            recall_read.append(sum(1 for a, b in zip(facts, quoted) if a or b) / len(q["key_facts"]))
            together = [verdicts.get(f"{tag}:{q['id']}:readfact:{i}") for i in range(len(q["key_facts"]))]
            recall_together.append(sum(1 for v in together if v) / len(q["key_facts"]))
            # The raw answer's facts (the same verdicts where it is the shown answer).
            same = r.get("raw_answer") and r["raw_answer"] == r.get("answer")
            raw_facts = facts if same else [verdicts.get(f"{tag}:{q['id']}:rawfact:{i}") for i in range(len(q["key_facts"]))]
            recall_raw.append(sum(1 for v in raw_facts if v) / len(q["key_facts"]))
        raw += [verdicts[k] for k in verdicts if k.startswith(f"{tag}:{q['id']}:raw:")]
        s = [verdicts[k] for k in verdicts if k.startswith(f"{tag}:{q['id']}:shown:")]
        shown += s
        bad += any(not v for v in s)
        if not r.get("error") and not r["abstained"]:
            answered += 1
            cite_ok += any(is_hit(c, q) for c in r["citations"])
    ok = lambda q: not answers[q["id"]].get("error")
    times = [answers[q["id"]] for q in qa + ooc if ok(q)]
    decode = [
        (t["new_tokens"] - 1) / ((t["ms"] - t["first_token_ms"] - (t["check_ms"] or 0)) / 1000)
        for t in times
        if t.get("first_token_ms") and t["new_tokens"] > 1 and t["ms"] - t["first_token_ms"] - (t["check_ms"] or 0) > 0
    ]
    return {
        "questions": len(qa),
        "key_fact_recall": sum(recall) / len(recall) if recall else None,
        # The same of the model's text before the check (an answer withheld still counts here).
        "key_fact_recall_raw": sum(recall_raw) / len(recall_raw) if recall_raw else None,
        # Of the book's quote shown above the answer, and of the two together (what is read).
        "key_fact_recall_quote": sum(recall_quote) / len(recall_quote) if recall_quote else None,
        "key_fact_recall_with_quote": sum(recall_read) / len(recall_read) if recall_read else None,
        # Of the quote and the answer judged as one text, as the student reads them.
        "key_fact_recall_read_together": sum(recall_together) / len(recall_together) if recall_together else None,
        "faithfulness_raw": sum(raw) / len(raw) if raw else None,
        "faithfulness_shown": sum(shown) / len(shown) if shown else None,
        "sentences_raw": len(raw),
        "sentences_shown": len(shown),
        "answers_with_unsupported_shown": bad,
        "answered": answered,
        "citation_precision": cite_ok / answered if answered else None,
        "false_abstentions": sum(1 for q in qa if ok(q) and answers[q["id"]]["abstained"]),
        # Answered again in the passages' words after the check left none of the first answer.
        "retried": sum(1 for q in qa + ooc if ok(q) and answers[q["id"]].get("first_raw_answer")),
        "correct_abstentions": sum(1 for q in ooc if ok(q) and answers[q["id"]]["abstained"]),
        "out_of_corpus": len(ooc),
        "errors": sum(1 for q in qa + ooc if not ok(q)),
        "median_sources_ms": median([t.get("sources_ms") for t in times]),
        "median_first_token_ms": median([t.get("first_token_ms") for t in times]),
        # When the answer's first text is on screen: its opening from the book (`lead_ms`), else
        # the model's first token.
        "median_first_text_ms": median([t.get("lead_ms") or t.get("first_token_ms") for t in times]),
        "median_decode_tok_s": median(decode),
        "median_check_ms": median([t.get("check_ms") for t in times]),
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/pathshala/target"))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bundle", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--judge", required=True, help="the judge model, or `none` for times and abstentions only")
    ap.add_argument("--set", default="dev")
    ap.add_argument("--data", default=os.path.join(here, "data"))
    ap.add_argument("--index-builder", default=os.path.join(target, "release", "index-builder"))
    ap.add_argument("--limit", type=int, default=None, help="first N in-corpus and N out-of-corpus questions")
    ap.add_argument("--closed-book", action="store_true", help="also answer without evidence (the baseline)")
    ap.add_argument("--labels", default=None)
    ap.add_argument("--ask-arg", action="append", default=[], help="passed on to `index-builder ask` (tuning: --ask-arg=--min-lexical=0)")
    ap.add_argument("--out", default=None, help="folder for the answers, the judge's verdicts and the figures")
    ap.add_argument("--facts-only", action="store_true", help="judge the key facts only (no faithfulness figures; for tuning runs)")
    ap.add_argument("--in-corpus-only", action="store_true", help="leave out the out-of-corpus questions (for tuning runs)")
    ap.add_argument("--check", action="store_true", help="exit 1 unless every figure was computed (the harness test)")
    ap.add_argument("--answers", default=None, help="judge the answers of an earlier run (its answers-grounded.jsonl) instead of asking again")
    ap.add_argument("--verdicts", action="append", default=[],
                    help="an earlier run's judge-pairs.jsonl with the same judge: a pair of the same kind, text and claim takes its margin instead of being judged again (label scoring is deterministic), and its verdict from today's threshold; pairs stored without a margin are judged again")
    args = ap.parse_args()
    for path in (args.bundle, args.model, args.index_builder) + (() if args.judge == "none" else (args.judge,)):
        if not os.path.exists(path):
            sys.exit(f"error: {path} does not exist")

    qa, ooc = load_set(args.set, args.data)
    if args.limit:
        qa, ooc = qa[: args.limit], ooc[: args.limit]
    if args.in_corpus_only:
        ooc = []
    if args.answers:
        earlier = {r["id"]: r for r in load_jsonl(args.answers)}
        missing = [q["id"] for q in qa + ooc if q["id"] not in earlier]
        if missing:
            sys.exit(f"error: {args.answers} has no answer for {len(missing)} questions of the set ({missing[:3]} …)")
        runs = {"grounded": earlier}
    else:
        runs = {"grounded": ask(args.index_builder, args.bundle, args.model, qa + ooc, args.ask_arg)}
    if args.closed_book:
        runs["closed-book"] = ask(args.index_builder, args.bundle, args.model, qa, ["--closed-book", *args.ask_arg])
    pairs = []
    for tag, answers in runs.items():
        pairs += pairs_for(qa, answers, tag, args.facts_only)
    # Each distinct (kind, text, claim) is judged once (a shown sentence is also a raw one), in
    # order, so pairs over the same text follow each other and the judge reuses its cache.
    unique = {}
    for p in pairs:
        unique.setdefault((p["kind"], p["text"], p["claim"]), len(unique))
    earlier = {}
    for path in args.verdicts:
        for p in load_jsonl(path):
            if p.get("judge_margin") is not None:
                earlier[(p["kind"], p["text"], p["claim"])] = p["judge_margin"]
    margins = {}
    if args.judge == "none":
        judged, verdicts = [], {}
    else:
        thresholds = json.loads(subprocess.run([args.index_builder, "judge", "--thresholds"], capture_output=True, text=True, check=True).stdout)
        fresh = [{"id": i, "kind": k, "text": t, "claim": c} for (k, t, c), i in unique.items() if (k, t, c) not in earlier]
        judged = run_jsonl(lambda path: [args.index_builder, "judge", "--model", args.judge, "--pairs", path], fresh) if fresh else []
        by_key = {j["id"]: j["margin"] for j in judged}
        by_key.update({i: earlier[key] for key, i in unique.items() if key in earlier})
        margins = {p["id"]: by_key[unique[(p["kind"], p["text"], p["claim"])]] for p in pairs}
        verdicts = {p["id"]: verdict(p["kind"], p["text"], p["claim"], margins[p["id"]], thresholds) for p in pairs}
        if args.verdicts:
            print(f"{len(unique) - len(fresh)} of {len(unique)} distinct pairs took an earlier verdict, {len(fresh)} judged", file=sys.stderr)
    result = {"set": args.set, "model": os.path.basename(args.model), "judge": os.path.basename(args.judge)}
    for tag, answers in runs.items():
        result[tag] = figures(qa, ooc if tag == "grounded" else [], answers, verdicts, tag)
    if args.labels:
        labels = {l["id"]: l["yes"] for l in load_jsonl(args.labels)}
        both = [k for k in labels if k in verdicts]
        result["judge_agreement"] = {"labels": len(both), "agreement": sum(labels[k] == verdicts[k] for k in both) / len(both) if both else None}
    print(json.dumps(result, indent=1))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        for tag, answers in runs.items():
            with open(os.path.join(args.out, f"answers-{tag}.jsonl"), "w", encoding="utf-8") as f:
                for a in answers.values():
                    f.write(json.dumps(a, ensure_ascii=False) + "\n")
        with open(os.path.join(args.out, "judge-pairs.jsonl"), "w", encoding="utf-8") as f:
            for p in pairs:
                f.write(json.dumps({**p, "judge_yes": verdicts.get(p["id"]), "judge_margin": margins.get(p["id"])}, ensure_ascii=False) + "\n")
        with open(os.path.join(args.out, "figures.json"), "w") as f:
            json.dump(result, f, indent=1)
    if args.check:
        g = result["grounded"]
        missing = [k for k in ("key_fact_recall", "median_sources_ms") if g[k] is None]
        if g["errors"] or missing or len(runs["grounded"]) != len(qa) + len(ooc) or not judged:
            sys.exit(f"the harness did not produce every figure: errors {g['errors']}, missing {missing}, {len(judged)} judgements")
        print(f"answer evaluation harness: {len(qa)} in-corpus + {len(ooc)} out-of-corpus questions, {len(judged)} judgements")


if __name__ == "__main__":
    main()
