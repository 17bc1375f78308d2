#!/usr/bin/env python3
"""Is a cheap score a usable relevance check for Ask's shown sentences?

Reads tests/eval/data/relevance_labels.jsonl (sentences Ask showed, each labelled by a person as
relevant to its question or not; `part` tuning | heldout) and scores each pair: MiniLM's cosine
between question and sentence (the `relevance_cosines` example), or with `--judge M.gguf` a chat
model's yes-minus-no margin for "Does the sentence help answer the question?" (`index-builder
judge`, kind `relevant`). Fits one threshold on the tuning part and reports both parts.

The rule: a shown sentence is kept when it, or an earlier shown sentence of the same run (the
consecutive sentences citing one passage), scores at least the threshold.

    python3 tests/eval/relevance_fit.py [--encoder models/cache/all-MiniLM-L6-v2]
    python3 tests/eval/relevance_fit.py --judge models/cache/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
"""
import argparse, json, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def runs_best(rows):
    """For each row, the best cosine among it and the earlier rows of its run."""
    out = []
    for i, r in enumerate(rows):
        j = i
        while j > 0 and rows[j - 1]["id"] == r["id"] and (rows[j - 1]["cite"] == r["cite"] or None in (rows[j - 1]["cite"], r["cite"])):
            j -= 1
        out.append(max(x["score"] for x in rows[j : i + 1]))
    return out


def figures(rows, best, t):
    kept = [b >= t for b in best]
    rel = [r["relevant"] for r in rows]
    tp = sum(k and y for k, y in zip(kept, rel))
    tn = sum(not k and not y for k, y in zip(kept, rel))
    return {"n": len(rows), "relevant": sum(rel), "relevant_kept": tp / max(1, sum(rel)),
            "irrelevant_dropped": tn / max(1, len(rel) - sum(rel)), "accuracy": (tp + tn) / max(1, len(rows))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--labels", default=os.path.join(ROOT, "tests/eval/data/relevance_labels.jsonl"))
    ap.add_argument("--encoder", default=os.path.join(ROOT, "models/cache/all-MiniLM-L6-v2"))
    ap.add_argument("--judge", help="score by this chat model's judgement instead of the encoder")
    a = ap.parse_args()
    needed = [a.labels, a.judge or os.path.join(a.encoder, "model.safetensors")]
    for p in needed:
        if not os.path.exists(p):
            sys.exit(f"error: {p} is missing (models: models/fetch.sh encoder, models/fetch.sh llm-large)")
    lines = open(a.labels, encoding="utf-8").read().splitlines()
    if a.judge:
        pairs = [json.dumps({"id": i, "kind": "relevant", "text": json.loads(l)["text"], "claim": json.loads(l)["question"]}) for i, l in enumerate(lines)]
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write("\n".join(pairs) + "\n")
        subprocess.run(["cargo", "build", "-q", "--release", "-p", "index-builder"], cwd=ROOT, check=True)
        exe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "index-builder")
        res = subprocess.run([exe, "judge", "--model", a.judge, "--pairs", f.name], capture_output=True, text=True, cwd=ROOT, check=True)
        os.unlink(f.name)
        out = [json.loads(l)["margin"] for l in res.stdout.splitlines() if l.strip()]
        grid = [x / 4 for x in range(-8, 13)]
    else:
        cmd = ["cargo", "run", "-q", "--release", "-p", "inference", "--example", "relevance_cosines", "--", a.encoder]
        out = subprocess.run(cmd, input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
        grid = [x / 100 for x in range(30, 61, 2)]
    if len(out) != len(lines):
        sys.exit(f"error: {len(out)} scores for {len(lines)} labels")
    parts = {}
    for line, c in zip(lines, out):
        r = json.loads(line)
        cites = re.findall(r"\[(\d+)\]", r["text"])
        r.update(score=float(c), cite=cites[-1] if cites else None)
        parts.setdefault(r["part"], []).append(r)
    best = {p: runs_best(rows) for p, rows in parts.items()}
    acc = {t: figures(parts["tuning"], best["tuning"], t)["accuracy"] for t in grid}
    plateau = [t for t in grid if acc[t] == max(acc.values())]
    tuned = plateau[len(plateau) // 2]  # the middle of the best thresholds
    report = {"score": "judge margin" if a.judge else "MiniLM cosine", "threshold": tuned, **{p: figures(rows, best[p], tuned) for p, rows in parts.items()}}
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
