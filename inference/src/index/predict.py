# Runs in Pathshala's Python sandbox (RustPython) while a course bundle is built:
# `index::predict` hands it, on stdin, one JSON task per line:
#   {"setup": [statement, ...], "target": statement, "expect": "what the book shows"}
# and reads one JSON line per task back:
#   {"ok": bool, "got": str, "shown": [indices of the setup kept],
#    "wrong": [{"output": str, "rule": str, "line": int, "code": str}]}
# `ok`: the kept setup and the target, run as the interactive interpreter runs them, show
# exactly what the book shows. `wrong`: what Python shows when one statement is changed the way
# a learner misreads it (`rule` names the misreading; `line` is -1 for the target, else the
# index into `shown`; `code` is the changed statement). Every output here was produced by
# running code, never guessed.
import ast
import contextlib
import copy
import io
import json
import re
import sys

MAX_OUTPUT = 120


# A changed loop may never end (`while n:` read as `while n is not None:`, `n -= 1` as `n = 1`):
# in a run with a changed statement every `while` loop stops with an error after this many rounds
# (`guarded`), and the change is not used.
MAX_ROUNDS = 10000


class Endless(Exception):
    pass


def tick():
    tick.rounds += 1
    if tick.rounds > MAX_ROUNDS:
        raise Endless()


def guarded(code):
    """`code` with a round counter at the top of each `while` body, for runs with a changed
    statement (the book's lines alone run as written)."""
    if "while" not in code or debug_form(code):
        return code
    tree = ast.parse(code)
    loops = [n for n in ast.walk(tree) if isinstance(n, ast.While)]
    for loop in loops:
        loop.body.insert(0, ast.Expr(ast.Call(ast.Name("_pathshala_tick", ast.Load()), [], [])))
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n" if loops else code


def fresh_globals():
    tick.rounds = 0
    return {"__name__": "__main__", "_pathshala_tick": tick}


def run(statements):
    """Runs the statements in fresh globals; returns what the last one shows, or None."""
    g = fresh_globals()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            for s in statements[:-1]:
                exec(compile(s, "<book>", "single"), g)
    except BaseException:
        return None
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(statements[-1], "<book>", "single"), g)
    except BaseException:
        return None
    return out.getvalue()


def loads(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def base_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def outside(node):
    """The nodes of `node` outside the bodies of the functions and classes it defines (their
    names are their own)."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)) or child in getattr(node, "decorator_list", []):
            yield from outside(child)


def touches(stmt):
    """Names a statement binds or changes in place (`a = …`, `a[0] = …`, `a.append(…)`, `def a`);
    not the names a function it defines binds inside."""
    out = set()
    for node in outside(stmt):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            name = base_name(node)
            if name:
                out.add(name)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            # Even a method that changes nothing (`s.upper()`): that `s` is then unchanged is
            # what the book shows, and what a misreading (`str_immutable`) asks.
            name = base_name(node.func.value)
            if name:
                out.add(name)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                out.add((alias.asname or alias.name).split(".")[0])
    return out


def rebound(stmt):
    """Names a statement binds afresh (`a = …` not reading `a`; a `for` loop's own variable):
    what came before is dead."""
    if isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets):
        return {t.id for t in stmt.targets} - loads(stmt.value)
    if isinstance(stmt, ast.For) and isinstance(stmt.target, ast.Name):
        return {stmt.target.id} - loads(stmt.iter)
    return set()


def needed(setup_trees, target_tree):
    """Indices of the setup statements the target depends on, in order: back from the target,
    each statement that binds or changes a name wanted, until a fresh binding of that name."""
    first = lambda tree: tree.body[0] if len(tree.body) == 1 else tree
    want = loads(target_tree) - rebound(first(target_tree))
    keep = set()
    grew = True
    # Again from the end while it grows: a function reads the names it uses when it is called,
    # so a line after its `def` can be needed.
    while grew:
        grew = False
        live = set(want)
        for i in range(len(setup_trees) - 1, -1, -1):
            tree = setup_trees[i]
            if touches(tree) & live:
                if i not in keep:
                    keep.add(i)
                    grew = True
                want |= loads(tree) - rebound(first(tree))
                live = (live | loads(tree)) - rebound(first(tree))
    return sorted(keep)


def const_int(node):
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) and type(node.operand.value) is int:
        return -node.operand.value
    return None


def num(v):
    return ast.Constant(v) if v >= 0 else ast.UnaryOp(ast.USub(), ast.Constant(-v))


METHOD_SWAPS = {
    "append": ["extend"], "extend": ["append"], "insert": [], "lower": ["upper"], "upper": ["lower"],
    "title": ["capitalize"], "capitalize": ["title"], "find": ["rfind", "count"], "rfind": ["find"],
    "index": ["count"], "count": ["index"], "keys": ["values", "items"], "values": ["keys"],
    "items": ["keys"], "startswith": ["endswith"], "endswith": ["startswith"], "lstrip": ["strip"],
    "rstrip": ["strip"], "strip": ["lstrip", "rstrip"], "split": ["rsplit"], "remove": [],
    "popitem": [], "union": ["intersection"], "intersection": ["union"], "difference": ["symmetric_difference"],
}
BUILTIN_SWAPS = {"max": ["min"], "min": ["max"], "int": ["round"], "round": ["int"], "str": ["repr"], "repr": ["str"],
                 "any": ["all"], "all": ["any"], "sorted": [], "reversed": []}
BINOP_SWAPS = {
    ast.Div: [(ast.FloorDiv, "true_division")], ast.FloorDiv: [(ast.Div, "floor_division"), (ast.Mod, "floor_division")],
    ast.Mod: [(ast.FloorDiv, "modulo")], ast.Pow: [(ast.Mult, "power")], ast.Mult: [],
    # Sets: a | b and a & b read as each other.
    ast.BitOr: [(ast.BitAnd, "set_union")], ast.BitAnd: [(ast.BitOr, "set_intersection")],
}
COMPARE_SWAPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt}


def replace(tree, pred, make, k=None):
    """A copy of `tree` with the k-th node (post-order) matching `pred` replaced by `make(node)`,
    or every such node when `k` is None; None when no node matches."""
    seen = [0]

    class Replace(ast.NodeTransformer):
        def visit(self, node):
            node = self.generic_visit(node)
            if pred(node):
                seen[0] += 1
                if k is None or seen[0] == k + 1:
                    return make(node)
            return node

    t = ast.fix_missing_locations(Replace().visit(copy.deepcopy(tree)))
    return t if seen[0] else None


LIST_CHANGES = {"sort", "reverse", "append", "extend", "insert", "remove", "clear"}
# Operators worked out left to right with the one on their left.
SAME_LEVEL = {ast.Sub: (ast.Add, ast.Sub), ast.Div: (ast.Mult, ast.Div, ast.FloorDiv), ast.FloorDiv: (ast.Mult, ast.Div, ast.FloorDiv)}
STR_RETURNS = {"upper", "lower", "strip", "lstrip", "rstrip", "replace", "title", "capitalize", "swapcase"}


def negative_division(node, op):
    """`node` is `a // b` (op) of two whole-number literals, one of them negative."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, op)):
        return False
    a, b = const_int(node.left), const_int(node.right)
    return a is not None and b not in (None, 0) and (a < 0 or b < 0)


def truncated(node):
    """`int(a / b)`: the quotient of `node`'s operands rounded towards zero."""
    return ast.Call(ast.Name("int", ast.Load()), [ast.BinOp(node.left, ast.Div(), node.right)], [])


def is_call(node, names):
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in names and len(node.args) == 1 and not node.keywords


REPLACEMENTS = [
    # len(x) read as the last index.
    ("len_index", lambda n: isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "len" and len(n.args) == 1,
     lambda n: ast.BinOp(n, ast.Sub(), ast.Constant(1))),
    # x += 5 read as x = 5.
    ("augassign", lambda n: isinstance(n, ast.AugAssign) and isinstance(n.op, (ast.Add, ast.Sub)),
     lambda n: ast.Assign(targets=[n.target], value=n.value)),
    ("break_continue", lambda n: isinstance(n, (ast.Break, ast.Continue)),
     lambda n: ast.Continue() if isinstance(n, ast.Break) else ast.Break()),
    # s.upper() on its own read as changing s (strings never change; the method returns a new one).
    ("str_immutable", lambda n: isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
     and n.value.func.attr in STR_RETURNS and isinstance(n.value.func.value, ast.Name),
     lambda n: ast.Assign(targets=[ast.Name(n.value.func.value.id, ast.Store())], value=n.value)),
    # sorted(a) on its own read as sorting a.
    ("sorted_inplace", lambda n: isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
     and n.value.func.id == "sorted" and len(n.value.args) == 1 and isinstance(n.value.args[0], ast.Name),
     lambda n: ast.Assign(targets=[ast.Name(n.value.args[0].id, ast.Store())], value=n.value)),
    # x = a.sort() read as the sorted list, x = a.append(v) as the longer list (both give None).
    ("returns_none", lambda n: isinstance(n, ast.Assign) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
     and (n.value.func.attr == "sort" and not n.value.args or n.value.func.attr == "append" and len(n.value.args) == 1) and not n.value.keywords,
     lambda n: ast.Assign(targets=n.targets, value=ast.Call(ast.Name("sorted", ast.Load()), [n.value.func.value], []) if n.value.func.attr == "sort"
                          else ast.BinOp(n.value.func.value, ast.Add(), ast.List([n.value.args[0]], ast.Load())))),
    # a.sort() (append, remove ...) on its own read as leaving the list as it was.
    ("inplace_ignored", lambda n: isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Attribute)
     and n.value.func.attr in LIST_CHANGES and isinstance(n.value.func.value, ast.Name),
     lambda n: ast.Pass()),
    # -2 ** 2 read as (-2) ** 2.
    ("unary_power", lambda n: isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.USub) and isinstance(n.operand, ast.BinOp) and isinstance(n.operand.op, ast.Pow),
     lambda n: ast.BinOp(ast.UnaryOp(ast.USub(), n.operand.left), ast.Pow(), n.operand.right)),
    # round(2.5) read as 3 (Python rounds a half to the even neighbour).
    ("round_half", lambda n: is_call(n, ("round",)),
     lambda n: ast.parse("int(__import__('math').floor((" + ast.unparse(n.args[0]) + ") + 0.5))", mode="eval").body),
    # set(x) and {1, 3, 1} read as keeping every item (duplicates included).
    ("set_duplicates", lambda n: is_call(n, ("set",)),
     lambda n: ast.Call(ast.Name("list", ast.Load()), n.args, [])),
    ("set_duplicates", lambda n: isinstance(n, ast.Set) and len({ast.dump(e) for e in n.elts}) < len(n.elts),
     lambda n: ast.List(n.elts, ast.Load())),
    # `or` / `and` outside a condition read as giving True or False (`name = typed or "Guest"`).
    ("or_value", lambda n: isinstance(n, (ast.Assign, ast.Expr)) and isinstance(n.value, ast.BoolOp),
     lambda n: type(n)(**{**{f: getattr(n, f) for f in n._fields}, "value": ast.Call(ast.Name("bool", ast.Load()), [n.value], [])})),
    # ", ".join(names) read as putting the separator after the last item too.
    ("join_end", lambda n: isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "join" and isinstance(n.func.value, ast.Constant)
     and isinstance(n.func.value.value, str) and n.func.value.value and len(n.args) == 1 and not n.keywords,
     lambda n: ast.BinOp(n, ast.Add(), ast.Constant(n.func.value.value))),
    # -7 // 2 read as rounding towards zero (-3); -7 % 2 as a remainder with the sign of -7 (-1).
    ("floor_negative", lambda n: negative_division(n, ast.FloorDiv), lambda n: truncated(n)),
    ("mod_negative", lambda n: negative_division(n, ast.Mod), lambda n: ast.BinOp(n.left, ast.Sub(), ast.BinOp(n.right, ast.Mult(), truncated(n)))),
    # str(a) + str(b) read as adding the numbers; int(a) + int(b) as joining the text.
    ("str_concat", lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and all(is_call(x, ("str",)) for x in (n.left, n.right)),
     lambda n: ast.BinOp(n.left.args[0], ast.Add(), n.right.args[0])),
    ("int_add", lambda n: isinstance(n, ast.BinOp) and isinstance(n.op, ast.Add) and all(is_call(x, ("int", "float")) for x in (n.left, n.right)),
     lambda n: ast.BinOp(n.left.args[0], ast.Add(), n.right.args[0])),
]
# Misreadings of a whole kind of code, made everywhere at once (a learner who reads an f-string
# as plain text reads every one so).
EVERYWHERE = [
    # f"{name} scored" read as a plain string: the braces printed as written.
    ("fstring_f", lambda n: isinstance(n, ast.JoinedStr) and any(isinstance(v, ast.FormattedValue) for v in n.values) and fstring_text(n) is not None,
     lambda n: ast.Constant(fstring_text(n))),
]


def fstring_text(node):
    """An f-string's text as written, braces and all (what it prints read as a plain string), or
    None when a format spec holds an expression."""
    parts = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            parts.append(str(v.value))
            continue
        spec = ""
        if v.format_spec is not None:
            if not all(isinstance(c, ast.Constant) for c in v.format_spec.values):
                return None
            spec = ":" + "".join(str(c.value) for c in v.format_spec.values)
        conversion = "!" + chr(v.conversion) if v.conversion and v.conversion > 0 else ""
        parts.append("{" + ast.unparse(v.value) + conversion + spec + "}")
    return "".join(parts)


def is_print(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "print"


def outside_defs(fn):
    """The nodes of a function's body, not those of functions defined inside it."""
    for stmt in fn.body:
        yield from outside(stmt)


def moved(tree):
    """(rule, changed tree) for a print() read as inside or outside the loop it follows or ends:
    the statement after a loop moved into its body, or a loop body's last print() moved after
    the loop."""
    out = []
    holders = [n for n in ast.walk(tree) if isinstance(getattr(n, "body", None), list)]
    for h, holder in enumerate(holders):
        body = holder.body
        for j, stmt in enumerate(body):
            if not isinstance(stmt, (ast.For, ast.While)) or stmt.orelse:
                continue
            if j + 1 < len(body) and is_print(body[j + 1]):
                t = copy.deepcopy(tree)
                b = [n for n in ast.walk(t) if isinstance(getattr(n, "body", None), list)][h].body
                b[j].body.append(b.pop(j + 1))
                out.append(("print_in_loop", ast.fix_missing_locations(t)))
            if len(stmt.body) >= 2 and is_print(stmt.body[-1]):
                t = copy.deepcopy(tree)
                b = [n for n in ast.walk(t) if isinstance(getattr(n, "body", None), list)][h].body
                b.insert(j + 1, b[j].body.pop())
                out.append(("print_after_loop", ast.fix_missing_locations(t)))
    return out


def statement_lists(tree):
    """Every list of statements in `tree` (bodies and else blocks), in walk order; not the else
    block that is an `elif` (a link of its `if`'s chain)."""
    return [getattr(n, field) for n in ast.walk(tree) for field in ("body", "orelse")
            if isinstance(getattr(n, field, None), list) and getattr(n, field)
            and not (field == "orelse" and isinstance(n, ast.If) and len(n.orelse) == 1 and isinstance(n.orelse[0], ast.If))]


def restructured(tree):
    """(rule, changed tree) for misreadings of how blocks run: an `elif` read as an `if` of its
    own (each condition tested, even after one above it was true), and a loop's `else` read
    as running after the loop whatever happened (even after `break`)."""
    out = []
    for h, stmts in enumerate(statement_lists(tree)):
        for j, stmt in enumerate(stmts):
            if isinstance(stmt, ast.If):
                # The chain's links: `if`, then each `elif` (an else block holding one `if` only).
                link, depth = stmt, 0
                while len(link.orelse) == 1 and isinstance(link.orelse[0], ast.If):
                    depth += 1
                    t = copy.deepcopy(tree)
                    target = statement_lists(t)[h]
                    cut = target[j]
                    for _ in range(depth - 1):
                        cut = cut.orelse[0]
                    rest = cut.orelse[0]
                    cut.orelse = []
                    target.insert(j + 1, rest)
                    out.append(("elif_as_if", ast.fix_missing_locations(t)))
                    link = link.orelse[0]
            if isinstance(stmt, (ast.For, ast.While)) and stmt.orelse and any(isinstance(n, ast.Break) for n in ast.walk(stmt)):
                t = copy.deepcopy(tree)
                target = statement_lists(t)[h]
                tail = target[j].orelse
                target[j].orelse = []
                target[j + 1:j + 1] = tail
                out.append(("loop_else", ast.fix_missing_locations(t)))
    return out


def is_negative_int(node):
    return const_int(node) is not None and const_int(node) < 0


# A question needs this many wrong outputs (`index::predict::WRONG`).
WRONG = 3
# Misreadings that move a statement or change every place alike: no one changed line to show
# in the reason.
NO_LINE = {"loop_else", "print_in_loop", "print_after_loop", "fstring_f", "local_scope", "arg_copy", "inplace_ignored", "round_half", "print_return", "return_print"}


BUILTINS = set(dir(__builtins__)) if not isinstance(__builtins__, dict) else set(__builtins__)


def copy_of(name):
    return ast.parse("__import__('copy').copy(" + name.id + ")", mode="eval").body


def debug_form(source):
    """Whether a line holds an f-string's `{x=}`, whose syntax tree is that of `x={x!r}`: a
    misreading rewritten from the tree would show other text than the book's."""
    return re.search(r"=\s*(![rsa])?(:[^{}]*)?}", source) is not None


def mutants(tree, keys, source, program=False):
    """(rule, changed tree) for each way a learner may misread one spot of the statement;
    `keys`: the string constants of the shown lines (a lookup may be read under another key);
    `source`: its text (none for a line with `f"{x=}"`: see `debug_form`); `program`: a whole
    program, not a line at the prompt (which shows what a call returns anyway)."""
    if debug_form(source):
        return []
    sites = [n for n in ast.walk(tree)]
    out = []

    def variant(index, rule, change):
        t = copy.deepcopy(tree)
        node = [n for n in ast.walk(t)][index]
        if change(node) is not False:
            out.append((rule, t))

    for i, n in enumerate(sites):
        if isinstance(n, ast.Slice):
            lo, hi = const_int(n.lower) if n.lower else None, const_int(n.upper) if n.upper else None
            if hi is not None and hi != -1:
                variant(i, "slice_end", lambda s: setattr(s, "upper", num(const_int(s.upper) + 1)))
            if lo is not None and lo >= 1:
                def from_one(s):
                    s.lower = num(const_int(s.lower) - 1)
                    if s.upper is not None and const_int(s.upper) is not None and const_int(s.upper) > 0:
                        s.upper = num(const_int(s.upper) - 1)
                variant(i, "slice_from_one", from_one)
                variant(i, "slice_start", lambda s: setattr(s, "lower", num(const_int(s.lower) + 1)))
            if lo is not None and lo <= -1:
                variant(i, "negative_index", lambda s: setattr(s, "lower", num(-const_int(s.lower))))
                if lo <= -2:
                    variant(i, "negative_index", lambda s: setattr(s, "lower", num(const_int(s.lower) + 1)))
            step = const_int(n.step) if n.step else None
            if step is not None and step >= 2:
                if n.lower is None:
                    variant(i, "slice_from_one", lambda s: setattr(s, "lower", ast.Constant(1)))
                variant(i, "slice_step", lambda s: setattr(s, "step", num(const_int(s.step) + 1)))
            if lo is None and n.lower is None and hi is not None and hi > 0 and n.upper is not None:
                variant(i, "slice_from_one", lambda s: setattr(s, "upper", num(const_int(s.upper) - 1)))
        elif isinstance(n, ast.Subscript) and not isinstance(n.slice, ast.Slice):
            k = const_int(n.slice)
            if isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str) and isinstance(n.ctx, ast.Load):
                for other in keys:
                    if other != n.slice.value:
                        variant(i, "other_key", lambda s, o=other: setattr(s, "slice", ast.Constant(o)))
            if k is not None and k >= 1:
                variant(i, "index_from_one", lambda s: setattr(s, "slice", num(const_int(s.slice) - 1)))
            if k is not None and k <= -1:
                variant(i, "negative_index", lambda s: setattr(s, "slice", num(-const_int(s.slice))))
                if k <= -2:
                    variant(i, "negative_index", lambda s: setattr(s, "slice", num(const_int(s.slice) + 1)))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            name = n.func.id
            if name == "range" and n.args:
                stop = 0 if len(n.args) == 1 else 1
                # The end read as included: one step further (down, for a negative step).
                step = const_int(n.args[2]) if len(n.args) == 3 else 1
                if const_int(n.args[stop]) is not None and step is not None and step != 0:
                    variant(i, "range_end", lambda s, j=stop, d=1 if step > 0 else -1: s.args.__setitem__(j, num(const_int(s.args[j]) + d)))
                if len(n.args) == 1 and const_int(n.args[0]) is not None:
                    variant(i, "range_start", lambda s: setattr(s, "args", [ast.Constant(1), num(const_int(s.args[0]) + 1)]))
            if name == "print" and len(n.args) >= 2 and not any(k.arg == "sep" for k in n.keywords):
                variant(i, "print_sep", lambda s: s.keywords.append(ast.keyword("sep", ast.Constant(""))))
            if name == "print" and any(k.arg == "end" for k in n.keywords):
                variant(i, "print_end", lambda s: setattr(s, "keywords", [k for k in s.keywords if k.arg != "end"]))
            if name == "enumerate" and any(k.arg == "start" for k in n.keywords):
                variant(i, "enumerate_start", lambda s: setattr(s, "keywords", [k for k in s.keywords if k.arg != "start"]))
            if n.keywords and all(k.arg for k in n.keywords) and name not in ("print", "enumerate", "sorted", "round", "range"):
                variant(i, "keyword_order", lambda s: (s.args.extend(k.value for k in s.keywords), setattr(s, "keywords", [])))
            for other in BUILTIN_SWAPS.get(name, []):
                variant(i, "builtin:" + name + ":" + other, lambda s, o=other: setattr(s.func, "id", o))
            if name in ("list", "sorted", "set", "tuple", "max", "min", "sum") and len(n.args) == 1 and isinstance(n.args[0], ast.Name):
                # list(d), sorted(d) … of a dictionary read as its values (fails on anything else).
                variant(i, "dict_values", lambda s: s.args.__setitem__(0, ast.Call(ast.Attribute(s.args[0], "values", ast.Load()), [], [])))
            if name == "len" and len(n.args) == 1:
                # len() of a string read as counting its letters only (fails on anything but text).
                variant(i, "len_spaces", lambda s: s.args.__setitem__(0, ast.Call(ast.Attribute(s.args[0], "replace", ast.Load()), [ast.Constant(" "), ast.Constant("")], [])))
            if name == "sorted" and any(k.arg == "reverse" for k in n.keywords):
                variant(i, "sort_reverse", lambda s: setattr(s, "keywords", [k for k in s.keywords if k.arg != "reverse"]))
            if name == "round" and len(n.args) == 2 and const_int(n.args[1]) is not None:
                variant(i, "round_digits", lambda s: s.args.__setitem__(1, num(const_int(s.args[1]) + 1)))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute):
            name = n.func.attr
            for other in METHOD_SWAPS.get(name, []):
                variant(i, "method:" + name + ":" + other, lambda s, o=other: setattr(s.func, "attr", o))
            if name == "sort" and any(k.arg == "reverse" for k in n.keywords):
                variant(i, "sort_reverse", lambda s: setattr(s, "keywords", [k for k in s.keywords if k.arg != "reverse"]))
            if name == "replace" and len(n.args) == 2 and not n.keywords:
                # replace() read as changing only the first place the text occurs.
                variant(i, "replace_first", lambda s: s.args.append(ast.Constant(1)))
            if name == "pop" and not n.args:
                variant(i, "pop_front", lambda s: s.args.append(ast.Constant(0)))
            if name == "insert" and len(n.args) == 2 and const_int(n.args[0]) is not None and const_int(n.args[0]) >= 1:
                variant(i, "index_from_one", lambda s: s.args.__setitem__(0, num(const_int(s.args[0]) - 1)))
        elif isinstance(n, ast.AugAssign):
            for op, rule in BINOP_SWAPS.get(type(n.op), []):
                variant(i, rule, lambda s, o=op: setattr(s, "op", o()))
        elif isinstance(n, ast.BinOp):
            for op, rule in BINOP_SWAPS.get(type(n.op), []):
                variant(i, rule, lambda s, o=op: setattr(s, "op", o()))
            # a - b - c read as a - (b - c); a ** b ** c as (a ** b) ** c.
            if type(n.op) in SAME_LEVEL and isinstance(n.left, ast.BinOp) and isinstance(n.left.op, SAME_LEVEL[type(n.op)]):
                variant(i, "left_to_right", lambda s: (setattr(s, "right", ast.BinOp(s.left.right, s.op, s.right)), setattr(s, "op", s.left.op), setattr(s, "left", s.left.left)))
            if isinstance(n.op, ast.Pow) and isinstance(n.right, ast.BinOp) and isinstance(n.right.op, ast.Pow):
                variant(i, "power_right", lambda s: (setattr(s, "left", ast.BinOp(s.left, ast.Pow(), s.right.left)), setattr(s, "right", s.right.right)))
            low, high = (ast.Add, ast.Sub), (ast.Mult, ast.Div, ast.FloorDiv, ast.Mod)
            # a + b * c read left to right as (a + b) * c, and (a + b) * c as a + b * c.
            if isinstance(n.op, low) and isinstance(n.right, ast.BinOp) and isinstance(n.right.op, high):
                variant(i, "precedence", lambda s: (setattr(s, "left", ast.BinOp(s.left, s.op, s.right.left)), setattr(s, "op", s.right.op), setattr(s, "right", s.right.right)))
            if isinstance(n.op, high) and isinstance(n.left, ast.BinOp) and isinstance(n.left.op, low):
                variant(i, "brackets", lambda s: (setattr(s, "right", ast.BinOp(s.left.right, s.op, s.right)), setattr(s, "op", s.left.op), setattr(s, "left", s.left.left)))
            # "+ adds a space between strings": a + " " + b without the " ".
            if isinstance(n.op, ast.Add) and isinstance(n.left, ast.BinOp) and isinstance(n.left.op, ast.Add) and isinstance(n.left.right, ast.Constant) and n.left.right.value == " ":
                variant(i, "concat_space", lambda s: setattr(s, "left", s.left.left))

        elif isinstance(n, (ast.For, ast.comprehension)) and isinstance(n.iter, ast.Name):
            # A loop over a dictionary read as going through its values, or its (key, value) pairs
            # (on anything but a dictionary the changed code fails and is not used).
            variant(i, "dict_values", lambda s: setattr(s, "iter", ast.Call(ast.Attribute(s.iter, "values", ast.Load()), [], [])))
            if isinstance(n, ast.For):
                variant(i, "dict_items", lambda s: setattr(s, "iter", ast.Call(ast.Attribute(s.iter, "items", ast.Load()), [], [])))
        elif isinstance(n, (ast.If, ast.While)) and (isinstance(n.test, (ast.Name, ast.Attribute, ast.Subscript)) or isinstance(n.test, ast.UnaryOp) and isinstance(n.test.op, ast.Not) and isinstance(n.test.operand, (ast.Name, ast.Attribute, ast.Subscript))):
            # `if items:` read as "is there a value at all": 0, '' and [] taken for true
            # (`if items not in (None, False):`).
            def only_none(s):
                negated = isinstance(s.test, ast.UnaryOp)
                nothing = ast.Tuple([ast.Constant(None), ast.Constant(False)], ast.Load())
                s.test = ast.Compare(s.test.operand if negated else s.test, [ast.In() if negated else ast.NotIn()], [nothing])
            variant(i, "truthiness", only_none)
        elif isinstance(n, ast.FormattedValue) and n.format_spec is not None:
            variant(i, "format_spec", lambda s: setattr(s, "format_spec", None))
        elif isinstance(n, ast.BoolOp):
            other = ast.Or if isinstance(n.op, ast.And) else ast.And
            variant(i, "and_or", lambda s, o=other: setattr(s, "op", o()))
        elif isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in COMPARE_SWAPS:
            variant(i, "compare_equal", lambda s: s.ops.__setitem__(0, COMPARE_SWAPS[type(s.ops[0])]()))
            if all(isinstance(x, ast.Constant) and isinstance(x.value, str) and x.value.isdigit() for x in (n.left, n.comparators[0])):
                # '10' < '9' read as comparing the numbers the digits spell.
                variant(i, "digits_as_numbers", lambda s: (setattr(s, "left", ast.Call(ast.Name("int", ast.Load()), [s.left], [])), s.comparators.__setitem__(0, ast.Call(ast.Name("int", ast.Load()), [s.comparators[0]], []))))
        elif isinstance(n, ast.Compare) and len(n.ops) == 1 and type(n.ops[0]) in (ast.In, ast.NotIn):
            variant(i, "in_not_in", lambda s: s.ops.__setitem__(0, ast.NotIn() if isinstance(s.ops[0], ast.In) else ast.In()))
            if isinstance(n.comparators[0], ast.Name):
                # `in` on a dictionary read as looking among its values (fails on anything else).
                variant(i, "dict_in_values", lambda s: s.comparators.__setitem__(0, ast.Call(ast.Attribute(s.comparators[0], "values", ast.Load()), [], [])))
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name) and isinstance(n.value, ast.Name):
            variant(i, "alias", lambda s: setattr(s, "value", ast.parse("__import__('copy').copy(" + s.value.id + ")", mode="eval").body))
    for i, n in enumerate(sites):
        if isinstance(n, ast.FunctionDef) and n.body and is_print(n.body[-1]) and n.body[-1].value.args and not any(isinstance(x, ast.Return) for x in outside_defs(n)):
            # A function that prints read as giving back what it prints.
            variant(i, "print_return", lambda s: s.body.append(ast.Return(s.body[-1].value.args[0] if len(s.body[-1].value.args) == 1 else ast.Tuple(list(s.body[-1].value.args), ast.Load()))))
        if isinstance(n, ast.FunctionDef) and not any(isinstance(x, (ast.Global, ast.Nonlocal)) for x in ast.walk(n)):
            # A name assigned in a function read as the variable of the same name outside.
            params = {a.arg for a in n.args.args + n.args.kwonlyargs + n.args.posonlyargs}
            assigned = sorted({x.id for x in ast.walk(n) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store)} - params)
            if assigned:
                variant(i, "local_scope", lambda s, a=assigned: s.body.insert(0, ast.Global(a)))
        elif isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id not in BUILTINS and any(isinstance(a, ast.Name) for a in n.args):
            # A list handed to a function read as a copy the function cannot change.
            variant(i, "arg_copy", lambda s: setattr(s, "args", [copy_of(a) if isinstance(a, ast.Name) else a for a in s.args]))
    # In a program, f(x) on a line of its own, f returning a value, read as showing it.
    returning = {f.name for f in sites if isinstance(f, ast.FunctionDef) and any(isinstance(x, ast.Return) and x.value is not None for x in outside_defs(f))}
    if program and returning:
        called = lambda n: isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name) and n.value.func.id in returning
        for k in range(sum(1 for n in sites if called(n))):
            out.append(("return_print", replace(tree, called, lambda n: ast.Expr(ast.Call(ast.Name("print", ast.Load()), [n.value], [])), k)))
    # Rules that replace a node in its parent: every match, one at a time.
    for rule, pred, make in REPLACEMENTS:
        matches = sum(1 for n in ast.walk(tree) if pred(n))
        for k in range(matches):
            out.append((rule, replace(tree, pred, make, k)))
    for rule, pred, make in EVERYWHERE:
        t = replace(tree, pred, make)
        if t is not None:
            out.append((rule, t))
    return out + moved(tree) + restructured(tree)


def shows(output):
    return output is not None and output.strip() != "" and len(output) <= MAX_OUTPUT and "Traceback" not in output


def run_program(source):
    """Runs a whole program in fresh globals; returns what it prints, or None."""
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(source, "<book>", "exec"), fresh_globals())
    except BaseException:
        return None
    return out.getvalue()


def same(a, b):
    return [l.rstrip() for l in a.rstrip().splitlines()] == [l.rstrip() for l in b.rstrip().splitlines()]


def unquoted(output):
    """What print() shows for a string the prompt showed as `output` (its repr); None if the
    output is not one string."""
    if "\n" in output:
        return None
    try:
        value = ast.literal_eval(output)
    except Exception:
        return None
    return value if isinstance(value, str) and value and value.strip() == value else None


# The most two-misreading variants of one question run (each is one more run of its code).
MAX_COMBINED = 60


def combined(tree, keys, source, outputs, program=False):
    """Two misreadings of one statement at once, for a question with too few single ones:
    (rule "a+b", the changed code, what `outputs(code)` gives for it), at most MAX_COMBINED runs.
    Both are misreadings of the book's code: never of what the first rewrote (`-7 % 2` read as
    `-7 - 2 * int(-7 / 2)` is not then read by precedence)."""
    tried = 0
    singles = mutants(tree, keys, source, program)
    own = {r for r, _ in singles}
    for r1, m1 in singles:
        for r2, m12 in mutants(m1, keys, source, program):
            if tried >= MAX_COMBINED:
                return
            if r2 == r1 or r2 not in own:
                continue
            tried += 1
            try:
                code = ast.unparse(m12)
            except Exception:
                continue
            out = outputs(code)
            if shows(out):
                yield r1 + "+" + r2, code, out


def solve_program(task):
    try:
        tree = ast.parse(task["program"])
    except SyntaxError:
        return {"ok": False, "got": "syntax", "shown": [], "wrong": []}
    got = run_program(task["program"])
    if got is None or not same(got, task["expect"]):
        return {"ok": False, "got": got if got is not None else "error", "shown": [], "wrong": []}
    keys = sorted({n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str) and 0 < len(n.value) <= 20})
    seen = {got.rstrip()}
    wrong = []
    # Misreadings are run as rewritten code: only where the rewriting itself keeps the output
    # (an f-string's `{x=}` loses its `=`).
    rewritten = run_program(ast.unparse(tree) + "\n")
    for rule, changed in (mutants(tree, keys, task["program"], program=True) if rewritten is not None and same(rewritten, got) else []):
        try:
            code = ast.unparse(changed)
        except Exception:
            continue
        out = run_program(guarded(code + "\n"))
        if shows(out) and out.rstrip() not in seen and not any(same(out, w) for w in seen):
            seen.add(out.rstrip())
            changed_line = "" if rule in NO_LINE else next((b for a, b in zip(ast.unparse(tree).splitlines(), code.splitlines()) if a != b), code)
            wrong.append({"output": out.rstrip(), "rule": rule, "line": -1, "code": changed_line.strip()})
    if len(wrong) < WRONG and rewritten is not None and same(rewritten, got):
        for rule, code, out in combined(tree, keys, task["program"], lambda code: run_program(guarded(code + "\n")), program=True):
            if out.rstrip() not in seen and not any(same(out, w) for w in seen):
                seen.add(out.rstrip())
                wrong.append({"output": out.rstrip(), "rule": rule, "line": -1, "code": ""})
    return {"ok": True, "got": got, "shown": [], "wrong": wrong}


def solve(task):
    if "program" in task:
        return solve_program(task)
    setup = task["setup"]
    try:
        trees = [ast.parse(s) for s in setup]
        target_tree = ast.parse(task["target"])
    except SyntaxError:
        return {"ok": False, "got": "syntax", "shown": [], "wrong": []}
    expect = task["expect"]
    keep = needed(trees, target_tree)
    # An assignment the book repeats (in two sections) is shown once, the last time; a line that
    # reads what it changes (`x.append(1)`, `n = n + 1`) means something each time and stays.
    def rebinds(tree):
        stmt = tree.body[0] if len(tree.body) == 1 else None
        return isinstance(stmt, ast.Assign) and all(isinstance(t, ast.Name) for t in stmt.targets) and not (loads(stmt.value) & {t.id for t in stmt.targets})
    keep = [i for i in keep if not (rebinds(trees[i]) and any(setup[j] == setup[i] for j in keep if j > i))]
    statements = [setup[i] for i in keep] + [task["target"]]
    got = run(statements)
    if got is None or got.rstrip() != expect.rstrip():
        return {"ok": False, "got": got if got is not None else "error", "shown": keep, "wrong": []}
    wrong = []
    seen = {got.rstrip()}
    shown = [trees[i] for i in keep] + [target_tree]
    keys = sorted({n.value for t in shown for n in ast.walk(t) if isinstance(n, ast.Constant) and isinstance(n.value, str) and 0 < len(n.value) <= 20})
    faithful = []
    for line, tree in enumerate(shown):
        out = run(statements[:line] + [ast.unparse(tree) + "\n"] + statements[line + 1:])
        faithful.append(out is not None and out.rstrip() == got.rstrip())
        if not faithful[-1]:
            continue
        for rule, changed in mutants(tree, keys, statements[line]):
            try:
                code = ast.unparse(changed)
            except Exception:
                continue
            trial = [guarded(x) for x in statements[:line]] + [guarded(code + "\n")] + [guarded(x) for x in statements[line + 1:]]
            out = run(trial)
            if shows(out) and out.rstrip() not in seen:
                seen.add(out.rstrip())
                wrong.append({"output": out.rstrip(), "rule": rule, "line": line if line < len(keep) else -1, "code": "" if rule in NO_LINE else code})
    value_line = got.rstrip()
    if isinstance(target_tree.body[0], ast.Expr) and "\n" not in value_line:
        try:
            value = eval(compile(value_line, "<shown>", "eval"), {})
        except Exception:
            value = None
        if isinstance(value, str) and value and value.strip() == value and value not in seen:
            seen.add(value)
            wrong.append({"output": value, "rule": "display", "line": -1, "code": "print(" + ast.unparse(target_tree.body[0].value) + ")" if faithful[-1] and not debug_form(task["target"]) else ""})
        # 0.1 + 0.2 read as exactly 0.3 (a short decimal Python cannot store exactly).
        near = repr(round(value, 10)) if type(value) is float and value == value and abs(value) < 1e15 else None
        if near is not None and near != repr(value) and len(near.lstrip("-")) <= 8 and near not in seen:
            seen.add(near)
            wrong.append({"output": near, "rule": "float_exact", "line": -1, "code": ""})
        # `/` read as giving a whole number when the division comes out even (10 / 2 shows 5.0),
        # and `//` of whole numbers read as giving a float.
        ops = {type(n.op) for n in ast.walk(target_tree) if isinstance(n, ast.BinOp)}
        if type(value) is float and value.is_integer() and ast.Div in ops and abs(value) < 1e15 and str(int(value)) not in seen:
            seen.add(str(int(value)))
            wrong.append({"output": str(int(value)), "rule": "float_result", "line": -1, "code": ""})
        if type(value) is float and value.is_integer() and ast.FloorDiv in ops and ast.Div not in ops and abs(value) < 1e15 and str(int(value)) not in seen:
            seen.add(str(int(value)))
            wrong.append({"output": str(int(value)), "rule": "float_floor", "line": -1, "code": ""})
        if type(value) is int and ast.FloorDiv in ops and ast.Div not in ops and repr(float(value)) not in seen:
            seen.add(repr(float(value)))
            wrong.append({"output": repr(float(value)), "rule": "int_result", "line": -1, "code": ""})
        # Too few: a misreading and the prompt's quotes read as print()'s output, both at once.
        if isinstance(value, str) and len(wrong) < WRONG:
            for w in list(wrong):
                text = unquoted(w["output"]) if "+" not in w["rule"] and w["rule"] != "display" else None
                if text is not None and text not in seen:
                    seen.add(text)
                    code = "print(" + w["code"] + ")" if w["line"] == -1 and w["code"] and "\n" not in w["code"] else ""
                    wrong.append({"output": text, "rule": w["rule"] + "+display", "line": w["line"], "code": code})
    # Still too few: two misreadings of one line at once (the host keeps those of two concepts).
    for line, tree in enumerate(shown):
        if sum("+" not in w["rule"] for w in wrong) >= WRONG or not faithful[line]:
            break
        trial = lambda code, line=line: run([guarded(x) for x in statements[:line]] + [guarded(code + "\n")] + [guarded(x) for x in statements[line + 1:]])
        for rule, code, out in combined(tree, keys, statements[line], trial):
            if out.rstrip() not in seen:
                seen.add(out.rstrip())
                wrong.append({"output": out.rstrip(), "rule": rule, "line": line if line < len(keep) else -1, "code": ""})
    return {"ok": True, "got": got, "shown": keep, "wrong": wrong}


for raw in sys.stdin.read().splitlines():
    if raw.strip():
        print(json.dumps(solve(json.loads(raw)), ensure_ascii=False))
