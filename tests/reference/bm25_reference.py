#!/usr/bin/env python3
"""Independent BM25 reference scores for Pathshala's Rust BM25.

What it makes
-------------
``inference/tests/fixtures/bm25_reference.json``: a small built-in corpus of
pre-tokenised documents (lowercase English words, Python identifiers such as
``__init__`` / ``os.path`` and Bengali words), a few pre-tokenised queries,
and the full (query x doc) matrix of BM25 scores.  A Rust test feeds the
*same tokens* to its BM25 and compares every score within 1e-4.

How
---
    /root/.cache/pathshala-venv/bin/python tests/reference/bm25_reference.py
        -> writes the fixture from the built-in corpus (run from repo root or
           anywhere; paths are resolved relative to this file).

    .../python tests/reference/bm25_reference.py INPUT.json [OUTPUT.json]
        -> INPUT is {"docs": [[tok,...],...], "queries": [[tok,...],...],
           "k1": 1.2, "b": 0.75}; writes the same output shape to OUTPUT
           (or stdout if OUTPUT is omitted).

No tokenisation happens here: tokens are taken exactly as given.

Formula (Lucene-style BM25, exact document lengths)
---------------------------------------------------
    N      = number of documents
    n(t)   = number of documents containing term t (document frequency)
    dl     = number of tokens in the document (exact, see note below)
    avgdl  = total tokens in corpus / N
    idf(t) = ln(1 + (N - n(t) + 0.5) / (n(t) + 0.5))          # always > 0
    tf(t)  = occurrences of t in the document
    score(q, d) = sum over DISTINCT terms t of q of
                  idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))

QUERY-TERM CONVENTION (chosen deliberately): the query is reduced to its set
of *distinct* terms; each distinct term contributes once, no matter how many
times it is repeated in the query.  (rank_bm25 and classic Okapi instead sum
once per query *occurrence*; Lucene's BooleanQuery over a parsed query would
also sum duplicates.)  Query terms that occur in no document contribute 0
(tf = 0), although their idf is finite and is still reported.

Differences from real Lucene (documented so nobody is surprised):
  * Lucene >= 8 drops the constant (k1 + 1) factor from the numerator
    (it does not change ranking).  We KEEP it, as the spec asks.
  * Lucene stores document length lossily (one byte "norm", SmallFloat
    encoding), so real Lucene scores differ slightly; we use exact dl.

Cross-check with rank_bm25 (if installed)
-----------------------------------------
rank_bm25.BM25Okapi uses the same tf-part but a different IDF:
    idf_okapi(t) = ln((N - n + 0.5) / (n + 0.5))
which is NEGATIVE for terms in more than half of the documents; rank_bm25
then replaces negative idfs by epsilon * mean(idf) (epsilon = 0.25).  It
also sums per query occurrence, not per distinct term.  To compare only the
tf-part we overwrite its ``idf`` dict with all-ones and query it one
distinct term at a time: BM25Okapi.get_scores([t]) is then exactly our
tf-part for t.  We also overwrite ``idf`` with our Lucene idf and compare
full scores for the de-duplicated query.  Any mismatch > 1e-9 aborts.
"""

import json
import math
import os
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = os.path.join(REPO, "inference", "tests", "fixtures", "bm25_reference.json")

K1 = 1.2
B = 0.75

# --- built-in corpus --------------------------------------------------------
# Deliberate features:
#  * "the" is in more than half the documents (rank_bm25's raw idf < 0 there)
#  * tf > 1 in several documents ("photosynthesis", "__init__", "সালোকসংশ্লেষণ")
#  * very short (1 token) and longer documents, so dl/avgdl varies a lot
#  * Python identifiers kept as single tokens: "__init__", "os.path", "self"
#  * Bengali tokens (NFC, as typed) mixed with English
DOCS_TEXT = [
    "the cell is the basic unit of life",
    "photosynthesis happens in the chloroplast of the plant cell",
    "plants make food by photosynthesis and photosynthesis needs sunlight",
    "the mitochondria is the powerhouse of the cell",
    "water boils at one hundred degrees celsius at sea level",
    "the earth revolves around the sun once a year",
    "gravity pulls objects toward the earth",
    "def __init__ self name self.name = name",
    "class student def __init__ self roll the __init__ method runs first",
    "import os os.path.join joins path parts",
    "use os.path to build the path to the file",
    "a list comprehension builds a list in one line",
    "for loop iterates over the items of a list",
    "print hello world",
    "the python interpreter reads the file line by line",
    "সালোকসংশ্লেষণ প্রক্রিয়ায় উদ্ভিদ খাদ্য তৈরি করে",
    "উদ্ভিদ সূর্যের আলো ব্যবহার করে সালোকসংশ্লেষণ করে",
    "কোষ জীবনের একক",
    "সালোকসংশ্লেষণ সালোকসংশ্লেষণ the plant chlorophyll",
    "fractions have a numerator and a denominator",
    "add the numerators when the denominators are the same",
    "the area of a circle is pi times the radius squared",
    "a triangle has three sides and three angles",
    "the sum of angles in a triangle is one hundred eighty degrees",
    "newton gave three laws of motion",
    "force equals mass times acceleration",
    "the ganga is the longest river in india",
    "rivers carry water to the sea",
    "photosynthesis",
    "the the the the the the the the cell",
]
DOCS = [t.split() for t in DOCS_TEXT]

QUERIES = [
    "photosynthesis in plant cell".split(),            # common English, tf>1 docs
    "__init__ self".split(),                            # Python identifiers
    "os.path file".split(),                             # dotted identifier
    "উদ্ভিদ সালোকসংশ্লেষণ".split(),                      # Bengali
    "the the cell".split(),                             # duplicate + very common term
    "triangle quantum angles".split(),                  # 'quantum' is out of vocabulary
]


# --- the independent implementation -----------------------------------------
def bm25_lucene(docs, queries, k1, b):
    """Return (scores[q][d], idf dict over all query terms, avgdl)."""
    n_docs = len(docs)
    if n_docs == 0:
        return [[] for _ in queries], {}, 0.0
    doc_tf = [Counter(d) for d in docs]
    doc_len = [len(d) for d in docs]
    avgdl = sum(doc_len) / n_docs
    df = Counter()
    for tf in doc_tf:
        for term in tf:
            df[term] += 1

    def idf(term):
        n = df.get(term, 0)
        return math.log(1.0 + (n_docs - n + 0.5) / (n + 0.5))

    idfs = {}
    scores = []
    for q in queries:
        terms = sorted(set(q))  # DISTINCT query terms, each counted once
        row = []
        for tf, dl in zip(doc_tf, doc_len):
            norm = k1 * (1.0 - b + b * dl / avgdl) if avgdl > 0 else k1 * (1.0 - b)
            s = 0.0
            for t in terms:
                f = tf.get(t, 0)
                if f:
                    s += idf(t) * f * (k1 + 1.0) / (f + norm)
            row.append(s)
        scores.append(row)
        for t in terms:
            idfs[t] = idf(t)
    return scores, idfs, avgdl


# --- optional cross-check against rank_bm25 ---------------------------------
def cross_check_rank_bm25(docs, queries, k1, b, scores, idfs):
    try:
        import rank_bm25
        from rank_bm25 import BM25Okapi
    except ImportError:
        print("rank_bm25 not installed: cross-check skipped", file=sys.stderr)
        return None
    if any(len(d) == 0 for d in docs):
        print("empty doc present: rank_bm25 cross-check skipped", file=sys.stderr)
        return None
    bm = BM25Okapi(docs, k1=k1, b=b)
    vocab = set(bm.idf)
    # rank_bm25 floors negative idfs inside its constructor, so recompute the
    # raw Okapi idf from document frequencies to report which terms it floors.
    df = Counter(t for d in docs for t in set(d))
    n_docs = len(docs)
    okapi_idf_raw = {t: math.log((n_docs - df[t] + 0.5) / (df[t] + 0.5)) for t in vocab}
    okapi_floor = bm.epsilon * bm.average_idf

    # 1) tf-part only: idf := 1 for every term, one distinct term at a time.
    bm.idf = {t: 1.0 for t in vocab}
    n_tf = 0
    ours_tf = bm25_lucene(docs, [[t] for q in queries for t in sorted(set(q))], k1, b)[0]
    k = 0
    for q in queries:
        for t in sorted(set(q)):
            theirs = list(bm.get_scores([t]))
            lucene_idf = idfs[t]
            for d, (mine_full, their_tf) in enumerate(zip(ours_tf[k], theirs)):
                mine_tf = mine_full / lucene_idf
                if abs(mine_tf - their_tf) > 1e-9:
                    raise SystemExit(f"tf-part mismatch q-term {t!r} doc {d}: {mine_tf} vs {their_tf}")
                n_tf += 1
            k += 1

    # 2) full score with OUR idf plugged into rank_bm25, de-duplicated query.
    bm.idf = dict(idfs)
    n_full = 0
    for qi, q in enumerate(queries):
        theirs = list(bm.get_scores(sorted(set(q))))
        for d, (mine, their) in enumerate(zip(scores[qi], theirs)):
            if abs(mine - their) > 1e-9:
                raise SystemExit(f"full-score mismatch query {qi} doc {d}: {mine} vs {their}")
            n_full += 1

    version = getattr(rank_bm25, "__version__", None)
    if version is None:
        try:
            from importlib.metadata import version as _v
            version = _v("rank_bm25")
        except Exception:
            version = "unknown"
    neg = sorted(t for t, v in okapi_idf_raw.items() if v < 0)
    print(f"rank_bm25 {version}: tf-part agrees on {n_tf} (term, doc) pairs, "
          f"full score (our idf) agrees on {n_full} pairs; "
          f"terms with negative Okapi idf (floored by rank_bm25): {neg}", file=sys.stderr)
    return {"rank_bm25_version": version,
            "tf_part_pairs_checked": n_tf,
            "full_score_pairs_checked": n_full,
            "max_abs_tolerance": 1e-9,
            "terms_with_negative_okapi_idf": neg,
            "okapi_raw_idf_of_those": {t: okapi_idf_raw[t] for t in neg},
            "okapi_epsilon_floor_used_instead": okapi_floor,
            "note": "rank_bm25 idf = ln((N-n+0.5)/(n+0.5)), floored to "
                    "epsilon*mean_idf when negative, and it sums duplicate "
                    "query terms; ours = ln(1+(N-n+0.5)/(n+0.5)), distinct terms. "
                    "tf-part is identical."}


def build_output(docs, queries, k1, b):
    scores, idfs, avgdl = bm25_lucene(docs, queries, k1, b)
    check = cross_check_rank_bm25(docs, queries, k1, b, scores, idfs)
    return {
        "description": "BM25 reference scores (Lucene idf, exact doc lengths), "
                       "generated by tests/reference/bm25_reference.py",
        "formula": {
            "idf": "ln(1 + (N - n + 0.5) / (n + 0.5))",
            "tf_part": "tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))",
            "score": "sum over DISTINCT query terms of idf * tf_part",
            "query_term_convention": "distinct",
        },
        "k1": k1,
        "b": b,
        "n_docs": len(docs),
        "avgdl": avgdl,
        "docs": docs,
        "queries": queries,
        "idf": idfs,
        "scores": scores,  # scores[query_index][doc_index]
        "tolerance": 1e-4,
        "cross_check": check,
    }


def main(argv):
    if len(argv) > 1:
        with open(argv[1], encoding="utf-8") as f:
            inp = json.load(f)
        out = build_output(inp["docs"], inp["queries"],
                           float(inp.get("k1", K1)), float(inp.get("b", B)))
        text = json.dumps(out, ensure_ascii=False, indent=1) + "\n"
        if len(argv) > 2:
            with open(argv[2], "w", encoding="utf-8") as f:
                f.write(text)
        else:
            sys.stdout.write(text)
        return
    out = build_output(DOCS, QUERIES, K1, B)
    os.makedirs(os.path.dirname(DEFAULT_OUT), exist_ok=True)
    with open(DEFAULT_OUT, "w", encoding="utf-8") as f:
        f.write(json.dumps(out, ensure_ascii=False, indent=1) + "\n")
    print(f"wrote {DEFAULT_OUT}: {len(QUERIES)} queries x {len(DOCS)} docs", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv)
