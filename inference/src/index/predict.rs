//! "What does Python show?" questions from the course's own interactive sessions.
//!
//! A Python book shows what code does: `>>> word[0:2]` followed by `'Py'`. Each such line whose
//! output is short and plain is a question whose key the book states. While the bundle is
//! built (natively, [`mine`], feature `sandbox`), the lines are run in the Python sandbox
//! (`predict.py`) to find the fewest earlier lines the output depends on and to check that those
//! lines and the target really show the book's output; then each spot a learner commonly
//! misreads (a slice's end index, counting from 1, a negative index, `range`'s stop, `/` against
//! `//`, assignment that does not copy, …) is changed and run, and what Python shows then is a
//! wrong option that a learner with that misreading would pick. Every option, right or wrong,
//! is the output of code that ran; nothing is guessed and no model is involved. The quiz and
//! authoring read the stored [`Prediction`]s from the bundle, in the browser too, where no
//! Python needs to run.

use serde::{Deserialize, Serialize};

/// One question: the lines shown, the line asked about, what the book shows, and wrong outputs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Prediction {
    pub section: u32,
    /// Byte offset of the asked line's `>>>` in the section's text (its chunk is found from it).
    pub offset: u32,
    /// The statements shown before the asked one (the fewest its output depends on), in order.
    pub setup: Vec<String>,
    /// What the book shows after each of them (empty for most: assignments show nothing).
    pub setup_output: Vec<String>,
    /// The statement asked about.
    pub code: String,
    /// What the book shows for it, checked by running `setup` and `code`.
    pub output: String,
    /// What Python shows when one spot is misread, best first: at least [`WRONG`] for a
    /// "what does Python show?" item ([`Prediction::is_multiple_choice`]); fewer (at least one
    /// stated misreading, [`belief`]) for a line only a "why" or "judge" item or a creative
    /// question asks about (`True` or `False`, one misreading that changes it).
    pub wrong: Vec<WrongOutput>,
    /// `code` is a whole program the book shows followed by its output ("Output:"), not a
    /// line of an interactive session; `setup` is then empty.
    pub program: bool,
}

/// A wrong option and where it comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WrongOutput {
    pub output: String,
    /// The misreading, as `predict.py` names it (`slice_end`, `method:append:extend`, …; see
    /// [`concept`] and the reasons in [`Prediction::rationale`]).
    pub rule: String,
    /// The statement as changed.
    pub code: String,
    /// The changed statement is one of the shown earlier ones, not the asked one.
    pub earlier: bool,
}

/// A "what does Python show?" item needs this many wrong outputs (four options in all).
pub const WRONG: usize = 3;

/// Misreadings most lines can be misread by, whatever they teach (how the prompt shows a
/// string): never a creative question's friend's, nor alone the reason to keep a line.
pub const INCIDENTAL: &[&str] = &["display"];

/// Misreadings of what every call of a kind does, which the build applies at one spot: a
/// learner who believes one would apply it to every `print()` or f-string of a program, not
/// to one ("Words:8" above "Start with a capital: 3").
pub const EVERY_CALL: &[&str] = &["print_sep", "print_end", "fstring_f", "format_spec"];

/// Whether misreading `rule` says nothing about what the lines teach: an [`INCIDENTAL`] one,
/// or in a program one of [`EVERY_CALL`].
pub fn aside(rule: &str, program: bool) -> bool {
    INCIDENTAL.contains(&rule) || program && EVERY_CALL.contains(&rule)
}

/// The longest output asked about, in characters, and its most lines.
const MAX_OUTPUT_CHARS: usize = 120;
const MAX_OUTPUT_LINES: usize = 5;
/// A wrong option may run longer: a print() read as inside a loop prints once a round.
#[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
const MAX_WRONG_LINES: usize = 8;
/// The wrong option for code that runs: it raises an error.
pub const NO_ERROR: &str = "It raises an error";
/// The most earlier statements a question shows.
#[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
const MAX_SETUP: usize = 6;
/// How many earlier statements of the file are offered to the dependency search.
#[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
const LOOKBACK: usize = 40;

impl Prediction {
    /// The stem's code: the shown lines with the interpreter's prompts, or the program.
    pub fn transcript(&self) -> String {
        if self.program {
            return self.code.trim_end().to_string();
        }
        let mut lines: Vec<String> = Vec::new();
        for (i, s) in self.setup.iter().enumerate() {
            lines.push(prompted(s));
            if let Some(o) = self.setup_output.get(i).filter(|o| !o.is_empty()) {
                lines.push(o.clone());
            }
        }
        lines.push(prompted(&self.code));
        lines.join("\n")
    }

    /// Whether the wrong outputs fill a "what does Python show?" item's options ([`WRONG`]).
    pub fn is_multiple_choice(&self) -> bool {
        self.wrong.len() >= WRONG
    }

    /// What an item on it rests on, as its evidence quotes it: the lines shown and the book's output.
    pub fn quote(&self) -> String {
        format!("{}\n{}", self.transcript(), self.output)
    }

    /// Why a learner would pick wrong option `w`, and why it is wrong: one or two sentences.
    pub fn rationale(&self, w: &WrongOutput) -> String {
        let why = explain(&w.rule);
        if w.code.is_empty() || w.code.contains('\n') || w.code.chars().count() > 60 {
            why
        } else if self.program {
            format!("This is what the program would print with `{}`. {why}", w.code)
        } else if w.earlier {
            format!("This is what the last line shows after `{}` instead. {why}", w.code)
        } else {
            format!("This is what `{}` shows. {why}", w.code)
        }
    }
}

/// `>>> ` on a statement's first line, `... ` on the rest.
fn prompted(statement: &str) -> String {
    let lines: Vec<&str> = statement.trim_end().lines().collect();
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(if i == 0 { ">>> " } else { "... " });
        out.push_str(line);
    }
    out
}

/// Two misreadings made at once, as `predict.py` names them (`slice_end+display`).
fn pair(rule: &str) -> Option<(&str, &str)> {
    rule.split_once('+')
}

/// The plain-language reason behind each misreading (two at once, `a+b`: both reasons).
fn explain(rule: &str) -> String {
    if let Some((a, b)) = pair(rule) {
        return format!("{} {}", explain(a), explain(b));
    }
    let fixed = match rule {
        "slice_end" => "A slice stops just before its end index, so the item at the end index is not included.",
        "slice_from_one" | "index_from_one" => "That counts positions from 1, but Python counts them from 0.",
        "slice_start" => "A slice includes the item at its start index.",
        "negative_index" => "A negative index counts from the end: -1 is the last item, -2 the one before it.",
        "range_end" => "range() stops just before its end value; the end value itself is never produced.",
        "range_start" => "range(n) starts at 0, not at 1.",
        "alias" => "Assignment does not copy: both names refer to the same object, so a change made through one shows through the other.",
        "true_division" => "`/` gives the exact quotient as a float; `//` is the operator that rounds down.",
        "floor_division" => "`//` gives the quotient rounded down to a whole number; `/` keeps the fraction and `%` gives the remainder.",
        "modulo" => "`%` gives the remainder of the division, not the quotient.",
        "power" => "`**` raises to a power; `*` multiplies.",
        "print_sep" => "print() puts a space between its arguments unless `sep=` says otherwise.",
        "display" => "The interactive prompt shows a string's repr, with its quotes; print() would show it without them.",
        "compare_equal" => "`<` and `>` leave out equality; `<=` and `>=` include it.",
        "and_or" => "`and` gives its first false operand (or the last one); `or` gives its first true operand (or the last one).",
        "pop_front" => "pop() without an argument removes and returns the last item, not the first.",
        "other_key" => "That is the value stored under another key; the code looks up a different one.",
        "slice_step" => "A slice's step takes every n-th item, starting with the first one in the slice.",
        "in_not_in" => "`in` tests membership and `not in` its opposite; the code uses the other one.",
        "len_index" => "len() counts the items; it is the last index that is one less than the count.",
        "float_result" => "`/` always gives a float, even when the division comes out even (10 / 2 is 5.0).",
        "int_result" => "`//` between whole numbers gives a whole number (an int), shown without .0.",
        "no_error" => "The code runs without an error: Python shows the output the book gives.",
        "precedence" => "Python multiplies and divides before it adds and subtracts, whatever the order they are written in.",
        "brackets" => "Brackets are worked out first, so the sum in brackets is taken before the multiplication.",
        "concat_space" => "`+` joins strings exactly as they are; the space comes from the \" \" in between.",
        "augassign" => "`+=` and `-=` change the current value; they do not replace it.",
        "break_continue" => "`continue` skips to the next round of the loop; `break` leaves the loop altogether.",
        "print_end" => "print() ends with a new line unless `end=` says otherwise.",
        "enumerate_start" => "enumerate() counts from 0 unless `start=` says otherwise.",
        "keyword_order" => "Keyword arguments are matched by name, not by their position in the call.",
        "round_digits" => "round()'s second argument is how many digits to keep after the point.",
        "fstring_f" => "In an f-string Python replaces each `{…}` by its value; only a string without the f before its quote shows the braces as written.",
        "format_spec" => "The part after the colon in `{…}` is a format specifier: it changes how the value is shown (`.2f`: exactly two decimal places).",
        "print_in_loop" => "The print() after the loop is not indented under it, so it runs once, after the loop has finished.",
        "print_after_loop" => "The print() is indented under the loop, so it runs in every round, not once at the end.",
        "str_immutable" => "String methods such as upper() and replace() return a new string; the string itself never changes.",
        "inplace_ignored" => "sort(), reverse(), append() and remove() change the list itself, in place.",
        "print_return" => "print() shows a value but does not give it back: a function with no return gives None.",
        "return_print" => "return gives the value back to the caller; nothing is shown unless the caller prints it.",
        "sort_reverse" => "`reverse=True` puts the largest first; without it the order is smallest first.",
        "left_to_right" => "Operators of the same precedence are worked out from left to right: 10 - 4 - 3 is (10 - 4) - 3.",
        "power_right" => "`**` is worked out from right to left: 2 ** 3 ** 2 is 2 ** 9.",
        "unary_power" => "`**` binds more tightly than a minus sign in front of it: -2 ** 2 is -(2 ** 2).",
        "round_half" => "round() takes a number exactly halfway between two whole numbers to the even one: round(2.5) is 2.",
        "float_floor" => "`//` with a float gives a float: the quotient rounded down, shown with .0.",
        "float_exact" => "Floats are stored in binary, so 0.1 + 0.2 is not exactly 0.3: Python shows the value it stores.",
        "set_union" => "`|` gives the union, every item in either set; `&` gives only the items in both.",
        "set_intersection" => "`&` gives the intersection, only the items in both sets; `|` gives every item in either.",
        "sorted_inplace" => "sorted() returns a new sorted list and leaves the list itself as it was; list.sort() is the one that sorts in place.",
        "returns_none" => "sort() and append() change the list in place and return None; they do not give back the list.",
        "str_concat" => "str() turns each number into text, and `+` joins text: the digits are put side by side, not added.",
        "int_add" => "int() and float() turn the strings into numbers first, so `+` adds them instead of joining the strings.",
        "local_scope" => "A variable assigned inside a function is local to it: the variable of the same name outside keeps its value.",
        "elif_as_if" => "An `elif` is tested only when every condition above it in the chain was false: once one branch has run, the rest of the chain is skipped.",
        "loop_else" => "A loop's `else` block runs only when the loop finishes without meeting `break`.",
        "dict_values" => "Going through a dictionary (a for loop, list(), sorted()) gives its keys; `.values()` gives the values.",
        "dict_items" => "A for loop over a dictionary gives its keys one at a time; `.items()` gives (key, value) pairs.",
        "dict_in_values" => "`in` on a dictionary looks among its keys, not its values.",
        "truthiness" => "In a condition 0, an empty string, an empty list or dictionary and None all count as false; every other value counts as true.",
        "or_value" => "`or` and `and` give back one of their operands, not necessarily True or False.",
        "set_duplicates" => "A set keeps each value only once: duplicates are dropped.",
        "floor_negative" => "`//` rounds the quotient down, towards minus infinity: -7 // 2 is -4, not -3.",
        "mod_negative" => "`%` gives a remainder with the sign of the number on its right: -7 % 2 is 1.",
        "digits_as_numbers" => "Strings are compared character by character, even when they hold digits: '10' < '9' because '1' comes before '9'.",
        "len_spaces" => "len() counts every character of a string, spaces included.",
        "replace_first" => "replace() changes every occurrence of the old substring, unless a count is given.",
        "join_end" => "join() puts the separator only between the items, not after the last one.",
        "arg_copy" => "A list passed to a function is the same list inside it, not a copy: a change made there shows outside too.",
        _ => "",
    };
    if !fixed.is_empty() {
        return fixed.to_string();
    }
    // `method:a:b` and `builtin:a:b`: the code calls `a`, the option is what `b` gives.
    match swapped(rule) {
        Some((a, b)) => format!("That is what `{}()` gives; the code calls `{}()`.", written(rule, b), written(rule, a)),
        None => "That is what a changed version of the code shows, not this code.".to_string(),
    }
}

/// The misreading `rule` stated as the learner would believe it: a false statement about
/// Python, the wrong option of a "why" item ([`principle`] is the right one); `None` for a
/// misreading that is no general rule (another key, two at once, an error). A method or
/// built-in read as another (`method:count:index`) is the one called doing what the other does.
pub fn belief(rule: &str) -> Option<String> {
    if let Some((called, other)) = swapped(rule) {
        return does(other, &written(rule, called));
    }
    Some(match rule {
        "slice_end" => "A slice includes the item at its end index.",
        "slice_from_one" | "index_from_one" => "Python counts positions from 1: the first item is at index 1.",
        "slice_start" => "A slice leaves out the item at its start index.",
        "negative_index" => "A negative index counts from the front, as a positive one does.",
        "range_end" => "range() includes its end value.",
        "range_start" => "range(n) starts at 1.",
        "alias" => "Assignment makes a copy, so a change made through one name does not show through the other.",
        "true_division" => "`/` between whole numbers rounds the quotient down to a whole number.",
        "floor_division" => "`//` keeps the fraction of the quotient.",
        "modulo" => "`%` gives the whole-number quotient of a division.",
        "power" => "`**` multiplies the two numbers.",
        "print_sep" => "print() joins its arguments with nothing between them.",
        "display" => "The interactive prompt shows a string without its quotes, as print() does.",
        "compare_equal" => "`<` and `<=` give the same answer when the two values are equal.",
        "and_or" => "`and` is true when either side is true, and `or` only when both are.",
        "pop_front" => "pop() without an argument removes the first item.",
        "slice_step" => "A slice's step is how many items are skipped between the ones taken.",
        "len_index" => "len() gives the index of the last item.",
        "float_result" => "`/` gives a whole number (an int) when the division comes out even.",
        "int_result" => "`//` always gives a float, such as 5.0, even between whole numbers.",
        "precedence" => "Python works out operators from left to right, whatever they are.",
        "brackets" => "Python multiplies before it adds even when the sum is in brackets.",
        "concat_space" => "`+` puts a space between the strings it joins.",
        "augassign" => "`+=` replaces the value with the number on its right.",
        "break_continue" => "`continue` leaves the loop altogether, and `break` skips to the next round.",
        "print_end" => "print() does not end with a new line, so the next print() goes on the same line.",
        "enumerate_start" => "enumerate() counts from 0 whatever `start=` says.",
        "keyword_order" => "Keyword arguments are matched by their position in the call.",
        "fstring_f" => "An f-string shows its `{…}` parts as written, braces and all.",
        "format_spec" => "The part after the colon in `{…}` is ignored when the value is shown.",
        "print_in_loop" => "A print() after a loop, not indented under it, runs in every round of the loop.",
        "print_after_loop" => "A print() indented under a loop runs once, after the loop has finished.",
        "str_immutable" => "String methods such as upper() and replace() change the string itself.",
        "inplace_ignored" => "sort(), reverse(), append() and remove() leave the list itself as it was.",
        "print_return" => "A function that prints a value also gives it back to the caller.",
        "return_print" => "return shows the value on the screen.",
        "sort_reverse" => "`reverse=True` does not change the order: the smallest still comes first.",
        "left_to_right" => "Operators of the same precedence are worked out from right to left.",
        "power_right" => "`**` is worked out from left to right: 2 ** 3 ** 2 is (2 ** 3) ** 2.",
        "unary_power" => "A minus sign in front binds more tightly than `**`: -2 ** 2 is 4.",
        "round_half" => "round() always takes a number halfway between two whole numbers up: round(2.5) is 3.",
        "float_floor" => "`//` gives a whole number (an int) even when one of the numbers is a float.",
        "float_exact" => "0.1 + 0.2 is exactly 0.3 in Python.",
        "set_union" => "`|` gives only the items that are in both sets.",
        "set_intersection" => "`&` gives every item that is in either set.",
        "sorted_inplace" => "sorted() sorts the list itself, in place.",
        "returns_none" => "sort() and append() give back the changed list.",
        "str_concat" => "`+` adds numbers even after str() has turned them into text.",
        "int_add" => "`+` joins texts side by side even after int() or float() has turned them into numbers.",
        "local_scope" => "Assigning to a name inside a function changes the variable of that name outside it.",
        "elif_as_if" => "Each `elif` is tested on its own, even after a condition above it was true, so more than one branch of the chain can run.",
        "loop_else" => "A loop's `else` block runs after the loop every time, even when the loop ended at `break`.",
        "dict_values" => "Going through a dictionary (a for loop, list(), sorted()) gives its values.",
        "dict_items" => "A for loop over a dictionary gives its (key, value) pairs.",
        "dict_in_values" => "`in` on a dictionary looks among its values.",
        "truthiness" => "Only None and False count as false in a condition: 0, an empty string and an empty list count as true.",
        "or_value" => "`or` and `and` always give True or False.",
        "set_duplicates" => "A set keeps every value it is given, duplicates included.",
        "floor_negative" => "`//` drops the fraction, rounding towards zero: -7 // 2 is -3.",
        "mod_negative" => "`%` gives a remainder with the sign of the number on its left: -7 % 2 is -1.",
        "digits_as_numbers" => "Strings of digits are compared as the numbers they spell: '10' < '9' is False.",
        "len_spaces" => "len() counts only the letters of a string, not its spaces.",
        "replace_first" => "replace() changes only the first occurrence of the old substring.",
        "join_end" => "join() puts the separator after every item, the last one too.",
        "arg_copy" => "A function gets a copy of a list passed to it, so a change made inside does not show outside.",
        _ => return None,
    }
    .to_string())
}

/// `method:a:b` and `builtin:a:b`: the function called (`a`) and the one its option comes from.
fn swapped(rule: &str) -> Option<(&str, &str)> {
    let mut parts = rule.splitn(3, ':');
    match (parts.next(), parts.next(), parts.next()) {
        (Some("method" | "builtin"), Some(a), Some(b)) => Some((a, b)),
        _ => None,
    }
}

/// How a call to `name` is written in a rule: `.count` for a method, `max` for a built-in.
fn written(rule: &str, name: &str) -> String {
    if rule.starts_with("method:") { format!(".{name}") } else { name.to_string() }
}

/// What the method or built-in `name` does, said of a call written `call`: "`.count(x)` gives
/// how many times x occurs." (the methods and built-ins `predict.py` swaps).
fn does(name: &str, call: &str) -> Option<String> {
    let (args, what) = doing(name)?;
    Some(format!("`{call}({args})` {what}."))
}

/// The arguments a call to `name` is written with and what it does ([`does`]).
fn doing(name: &str) -> Option<(&'static str, &'static str)> {
    Some(match name {
        "append" => ("x", "adds x to the end of the list as one item"),
        "extend" => ("x", "adds each item of x to the end of the list"),
        "lower" => ("", "gives a copy of the string in lower case"),
        "upper" => ("", "gives a copy of the string in capital letters"),
        "title" => ("", "gives a copy of the string with the first letter of every word in capitals"),
        "capitalize" => ("", "gives a copy of the string with only its first letter in capitals"),
        "find" => ("s", "gives the index where s first occurs, or -1"),
        "rfind" => ("s", "gives the index where s last occurs, or -1"),
        "count" => ("x", "gives how many times x occurs"),
        "index" => ("x", "gives the index where x first occurs"),
        "keys" => ("", "gives the dictionary's keys"),
        "values" => ("", "gives the dictionary's values"),
        "items" => ("", "gives the dictionary's (key, value) pairs"),
        "startswith" => ("s", "tells whether the string begins with s"),
        "endswith" => ("s", "tells whether the string ends with s"),
        "lstrip" => ("", "removes spaces (or the characters it is given) from the left end of the string only"),
        "rstrip" => ("", "removes spaces (or the characters it is given) from the right end of the string only"),
        "strip" => ("", "removes spaces (or the characters it is given) from both ends of the string"),
        "split" => ("sep, n", "splits at the first n separators, counting from the left"),
        "rsplit" => ("sep, n", "splits at the last n separators, counting from the right"),
        "union" => ("other", "gives every item that is in either set"),
        "intersection" => ("other", "gives only the items that are in both sets"),
        "difference" => ("other", "gives the items of this set that are not in the other"),
        "symmetric_difference" => ("other", "gives the items that are in exactly one of the two sets"),
        "max" => ("", "gives the largest of its items"),
        "min" => ("", "gives the smallest of its items"),
        "int" => ("x", "drops the fraction of x, rounding towards zero"),
        "round" => ("x", "rounds x to the nearest whole number"),
        "str" => ("x", "gives x as text, as print() shows it"),
        "repr" => ("x", "gives x as Python writes it, a string with its quotes"),
        "any" => ("items", "is True when at least one of the items is true"),
        "all" => ("items", "is True only when every one of the items is true"),
        _ => return None,
    })
}

/// A question that asks for the rule `rule`'s misreading breaks, as a learner states it from
/// memory (the knowledge part of a creative question; its answer is [`principle`]); `None`
/// where there is no such rule.
pub fn recall(rule: &str) -> Option<String> {
    principle(rule)?;
    if let Some((called, _)) = swapped(rule) {
        let (args, _) = doing(called)?;
        return Some(format!("What does `{}({args})` do?", written(rule, called)));
    }
    Some(
        match rule {
            "slice_end" => "Which item does a slice `s[i:j]` stop just before?",
            "slice_from_one" | "index_from_one" => "At which index does Python count the first item of a sequence?",
            "slice_start" => "Does a slice `s[i:j]` include the item at its start index?",
            "negative_index" => "Which item does the index -1 give?",
            "range_end" => "Does range() produce its end value?",
            "range_start" => "At which number does range(n) start?",
            "alias" => "What does `b = a` do when `a` names a list?",
            "true_division" => "What does the `/` operator give?",
            "floor_division" => "What does the `//` operator give?",
            "modulo" => "What does the `%` operator give?",
            "power" => "What does the `**` operator do?",
            "print_sep" => "What does print() put between its arguments?",
            "display" => "How does the interactive prompt show a string value?",
            "compare_equal" => "Which of `<` and `<=` includes equality?",
            "and_or" => "Which operand does `and` give, and which does `or` give?",
            "pop_front" => "Which item does pop() remove when it is given no argument?",
            "slice_step" => "Which items does a slice's step take?",
            "len_index" => "What does len() give?",
            "float_result" => "What type of number does `/` give?",
            "int_result" => "What type of number does `//` give between whole numbers?",
            "precedence" => "In which order does Python work out `+` and `*` in one expression?",
            "brackets" => "Which part of an expression does Python work out first?",
            "concat_space" => "Does `+` put a space between the strings it joins?",
            "augassign" => "What does `+=` do to a variable?",
            "break_continue" => "What do `break` and `continue` do in a loop?",
            "print_end" => "What does print() write after its arguments?",
            "enumerate_start" => "From which number does enumerate() count?",
            "keyword_order" => "How are keyword arguments matched to a function's parameters?",
            "round_digits" => "What does round()'s second argument say?",
            "fstring_f" => "What does Python do with each `{…}` in an f-string?",
            "format_spec" => "What does the part after the colon in an f-string's `{…}` do?",
            "print_in_loop" => "How many times does a print() after a loop, not indented under it, run?",
            "print_after_loop" => "How many times does a print() indented under a loop run?",
            "str_immutable" => "Do string methods such as upper() change the string itself?",
            "inplace_ignored" => "What do sort() and append() change?",
            "print_return" => "What does a function without a return statement give back?",
            "return_print" => "What does return do with a value?",
            "sort_reverse" => "What does `reverse=True` do to a sort?",
            "left_to_right" => "In which order does Python work out operators of the same precedence?",
            "power_right" => "In which order does Python work out `2 ** 3 ** 2`?",
            "unary_power" => "Which binds more tightly in `-2 ** 2`: the minus sign or `**`?",
            "round_half" => "What does round() do with a number exactly halfway between two whole numbers?",
            "float_floor" => "What type of number does `//` give when one of the numbers is a float?",
            "float_exact" => "Why is 0.1 + 0.2 not exactly 0.3 in Python?",
            "set_union" => "What does `|` give for two sets?",
            "set_intersection" => "What does `&` give for two sets?",
            "sorted_inplace" => "What does sorted() do to the list it is given?",
            "returns_none" => "What do sort() and append() return?",
            "str_concat" => "What does `+` do with two numbers that str() has turned into text?",
            "int_add" => "What does `+` do with two texts that int() has turned into numbers?",
            "local_scope" => "Where does a variable assigned inside a function belong?",
            "elif_as_if" => "When does Python test the condition of an `elif`?",
            "loop_else" => "When does a loop's `else` block run?",
            "dict_values" => "What does a for loop over a dictionary go through?",
            "dict_items" => "What does a for loop over a dictionary give, one at a time?",
            "dict_in_values" => "Where does `in` look when it is used on a dictionary?",
            "truthiness" => "Which values count as false in a condition?",
            "or_value" => "What does `or` give back when its first operand is true?",
            "set_duplicates" => "What does a set do with a value it is given twice?",
            "floor_negative" => "Which way does `//` round a negative quotient?",
            "mod_negative" => "Which sign does the result of `%` take?",
            "digits_as_numbers" => "How does Python compare two strings of digits such as '10' and '9'?",
            "len_spaces" => "Which characters of a string does len() count?",
            "replace_first" => "How many occurrences does replace() change when no count is given?",
            "join_end" => "Where does join() put its separator?",
            "arg_copy" => "Does a function get a copy of a list passed to it?",
            _ => return None,
        }
        .to_string(),
    )
}

/// The rule of the language a misreading breaks, stated plainly: the right option of a "why"
/// item; `None` where [`belief`] has no false statement to set against it.
pub fn principle(rule: &str) -> Option<String> {
    belief(rule)?;
    if let Some((called, _)) = swapped(rule) {
        return does(called, &written(rule, called));
    }
    Some(match rule {
        // Their reason speaks of the option ("That counts …"); the rule itself:
        "slice_from_one" | "index_from_one" => "Python counts positions from 0: the first item is at index 0.".to_string(),
        _ => explain(rule),
    })
}

/// What the misreading `rule` tests, as an item's concept.
pub fn concept(rule: &str) -> Option<&'static str> {
    let rule = pair(rule).map_or(rule, |(first, _)| first);
    Some(match rule.split(':').next().unwrap_or(rule) {
        "slice_end" | "slice_from_one" | "slice_start" | "slice_step" => "slicing",
        "index_from_one" | "negative_index" | "len_index" => "indexing",
        "range_end" | "range_start" => "range()",
        "alias" => "names and references",
        "true_division" | "floor_division" | "modulo" | "power" | "float_result" | "int_result" => "arithmetic operators",
        "display" => "how the interpreter shows values",
        "print_sep" | "print_end" => "print()",
        "pop_front" => "list methods",
        "other_key" => "dictionaries",
        // A method read as another: what kind of object it belongs to (a topic a teacher names).
        "method" => match swapped(rule).map(|(called, _)| called) {
            Some("keys" | "values" | "items" | "get") => "dictionaries",
            Some("append" | "extend" | "insert" | "pop" | "remove" | "sort" | "reverse") => "list methods",
            Some("lower" | "upper" | "title" | "capitalize" | "find" | "rfind" | "startswith" | "endswith" | "strip" | "lstrip" | "rstrip" | "split" | "rsplit" | "replace") => "string methods",
            Some("union" | "intersection" | "difference" | "symmetric_difference") => "sets",
            _ => "methods",
        },
        "builtin" => "built-in functions",
        "compare_equal" | "in_not_in" | "and_or" => "conditions",
        "round_digits" => "round()",
        "precedence" | "brackets" => "order of operations",
        "concat_space" => "joining strings",
        "augassign" => "updating variables",
        "break_continue" => "break and continue",
        "enumerate_start" => "enumerate()",
        "keyword_order" => "keyword arguments",
        "fstring_f" | "format_spec" => "f-strings",
        "print_in_loop" | "print_after_loop" => "loops and indentation",
        "str_immutable" => "string methods",
        "inplace_ignored" | "sort_reverse" => "sorting and list methods",
        "print_return" | "return_print" => "return and print",
        "left_to_right" | "power_right" | "unary_power" => "order of operations",
        "round_half" => "round()",
        "float_floor" | "float_exact" => "arithmetic operators",
        "set_union" | "set_intersection" => "sets",
        "sorted_inplace" | "returns_none" => "sorting and list methods",
        "str_concat" | "int_add" => "type conversion",
        "local_scope" => "scope",
        "elif_as_if" | "truthiness" | "or_value" | "digits_as_numbers" => "conditions",
        "loop_else" => "loops",
        "dict_values" | "dict_items" | "dict_in_values" => "dictionaries",
        "set_duplicates" => "sets",
        "floor_negative" | "mod_negative" => "arithmetic operators",
        "len_spaces" => "strings",
        "replace_first" | "join_end" => "string methods",
        "arg_copy" => "names and references",
        _ => return None,
    })
}

/// The misreadings `predict.py` makes one at a time (besides `method:…` and `builtin:…`), the
/// commonest first ([`rank`]).
pub const RULES: &[&str] = &[
    "slice_end", "index_from_one", "slice_from_one", "negative_index", "range_end", "range_start", "alias", "local_scope", "arg_copy", "print_return", "return_print",
    "elif_as_if", "dict_values", "dict_in_values", "truthiness", "set_duplicates", "dict_items", "or_value", "loop_else", "floor_negative", "mod_negative", "digits_as_numbers",
    "replace_first", "join_end", "len_spaces",
    "str_immutable", "sorted_inplace", "returns_none", "inplace_ignored", "sort_reverse", "str_concat", "int_add", "left_to_right",
    "power_right", "unary_power", "float_floor", "round_half", "float_exact", "set_union", "set_intersection",
    "precedence", "brackets", "augassign", "print_in_loop", "print_after_loop", "break_continue", "print_end", "enumerate_start", "keyword_order",
    "concat_space", "fstring_f", "format_spec",
    "true_division", "floor_division", "modulo", "float_result", "int_result", "display", "print_sep", "pop_front", "power", "slice_start",
    "round_digits", "len_index", "slice_step", "in_not_in", "other_key", "compare_equal", "and_or",
];

/// How strongly a misreading is worth asking about: the common ones first.
#[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
fn rank(rule: &str) -> usize {
    // Two misreadings at once: by the first ([`by_rank`] puts them after every single one).
    match pair(rule) {
        Some((first, _)) => RULES.len() + 1 + rank(first),
        None => RULES.iter().position(|r| *r == rule).unwrap_or(RULES.len()),
    }
}

/// The commonest misreadings first, one of each rule before a second of any (an item's wrong
/// options then test different rules: `word[1:5]` and `word[0:4]` are both slice misreadings),
/// and two misreadings at once after every single one.
#[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
fn by_rank(wrong: &mut Vec<WrongOutput>) {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut keyed: Vec<((bool, usize, usize), WrongOutput)> = wrong
        .drain(..)
        .map(|w| {
            let n = seen.entry(w.rule.clone()).or_default();
            *n += 1;
            ((pair(&w.rule).is_some(), *n, rank(&w.rule)), w)
        })
        .collect();
    keyed.sort_by_key(|(k, _)| *k);
    wrong.extend(keyed.into_iter().map(|(_, w)| w));
}

/// One `>>>` statement of a section and what the book shows after it.
#[derive(Clone, Debug, PartialEq)]
pub struct Step {
    /// Byte offset of its `>>>` in the section's text.
    pub offset: usize,
    /// The statement without prompts (continuation lines included, comments of one-line statements removed), ending in a newline.
    pub source: String,
    /// The lines after it up to the next prompt or blank line.
    pub output: String,
}

/// The interactive statements of a text, in order.
pub fn steps(text: &str) -> Vec<Step> {
    let mut out: Vec<Step> = Vec::new();
    let mut offset = 0;
    let mut current: Option<(Step, bool)> = None; // (step, still reading continuation lines)
    for line in text.split_inclusive('\n') {
        let at = offset;
        offset += line.len();
        let l = line.trim_end_matches(['\n', '\r']);
        if let Some(code) = l.strip_prefix(">>>") {
            if let Some((s, _)) = current.take() {
                out.push(s);
            }
            let code = code.strip_prefix(' ').unwrap_or(code);
            current = Some((Step { offset: at, source: format!("{code}\n"), output: String::new() }, true));
            continue;
        }
        match current.as_mut() {
            Some((s, reading)) if *reading && (l == "..." || l.starts_with("... ")) => {
                s.source.push_str(l.get(4..).unwrap_or(""));
                s.source.push('\n');
            }
            Some((s, reading)) if !l.trim().is_empty() => {
                *reading = false;
                if !s.output.is_empty() {
                    s.output.push('\n');
                }
                s.output.push_str(l);
            }
            Some(_) => {
                if let Some((s, _)) = current.take() {
                    out.push(s);
                }
            }
            None => {}
        }
    }
    if let Some((s, _)) = current {
        out.push(s);
    }
    for s in &mut out {
        if s.source.lines().count() == 1 {
            s.source = format!("{}\n", strip_comment(s.source.trim_end()).trim_end());
        } else if !s.source.ends_with("\n\n") {
            s.source.push('\n');
        }
    }
    out
}

/// A line without its trailing `# comment` (a `#` inside a string literal stays).
fn strip_comment(line: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '\'' || c == '"' => quote = Some(c),
            None if c == '#' => return &line[..i],
            None => {}
        }
    }
    line
}

/// Whether the book's output for a statement can be a question: short, plain, and the same on
/// every run (no addresses, no elided parts, no errors).
fn askable(src: &str, o: &str) -> bool {
    !o.trim().is_empty()
        && o.chars().count() <= MAX_OUTPUT_CHARS
        && o.lines().count() <= MAX_OUTPUT_LINES
        && !o.contains("Traceback")
        && !o.contains("0x")
        && !o.contains("...")
        && !o.contains(" object at ")
        && !o.lines().any(|l| l.starts_with("File ") || l.starts_with("  File "))
        && src.chars().count() <= 240
        && !["import ", "input(", "random", "time.", "id(", "hash(", "open(", "help(", "dir(", "sys.", "os."]
            .iter()
            .any(|w| src.contains(w))
}

/// Whether a statement may be shown as an earlier line: it ran without an error in the book.
/// (A `while` loop may be: a misreading that makes one endless, `n -= 1` read as `n = 1`, is cut
/// short by `predict.py`'s round counter, so a file's questions still finish in one run.)
#[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
fn usable_setup(step: &Step) -> bool {
    !step.output.contains("Traceback") && !step.output.contains("Error:") && !step.source.contains("input(")
}

#[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
#[derive(Deserialize)]
struct Solved {
    ok: bool,
    shown: Vec<usize>,
    wrong: Vec<WrongRaw>,
}

#[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
#[derive(Deserialize)]
struct WrongRaw {
    output: String,
    rule: String,
    code: String,
    /// -1: the asked statement; else the index of the changed shown one.
    line: i64,
}

/// A question asked of the sandbox: a session line (its index in the file's steps and the
/// indices of the earlier steps offered), or a program (section, offset, code, output).
#[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
enum Asked {
    Step(usize, Vec<usize>),
    Program(u32, usize, String, String),
}

/// The programs a section shows with their output: a code block, a short lead such as
/// "Output:", and the block after it. (offset of the program, program, output)
pub fn programs(section: &crate::index::Section) -> Vec<(usize, String, String)> {
    let text = &section.text;
    let block = |i: usize| &text[section.blocks[i].start as usize..section.blocks[i].end as usize];
    let mut out = Vec::new();
    for i in 0..section.blocks.len().saturating_sub(2) {
        let (code, lead, shown) = (section.blocks[i], section.blocks[i + 1], section.blocks[i + 2]);
        if !code.atomic || lead.atomic || !shown.atomic {
            continue;
        }
        let l = block(i + 1).trim().to_lowercase();
        let leads = l.chars().count() <= 40 && l.ends_with(':') && ["output", "prints", "আউটপুট", "ফলাফল"].iter().any(|w| l.contains(w));
        let program = block(i).trim_end();
        let output = block(i + 2).trim_end();
        if leads && !program.contains(">>>") && program.lines().count() <= 12 && askable(program, output) {
            out.push((code.start as usize, format!("{program}\n"), output.to_string()));
        }
    }
    out
}

/// What mining found, for the builder's log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MineReport {
    /// Statements whose output could be asked about.
    pub askable: usize,
    /// Of them, those the sandbox reproduced from the lines shown.
    pub reproduced: usize,
    /// Of them, those with at least [`WRONG`] wrong outputs: the questions kept.
    pub kept: usize,
    /// Of them, those with fewer but a stated misreading, kept for "why" and "judge" items
    /// and creative questions ([`Prediction::is_multiple_choice`] is false).
    pub kept_explained: usize,
    /// Files whose run failed (timeout, sandbox error).
    pub failed_files: Vec<String>,
}

/// Mines every section's sessions: one sandbox run per file (statements carry over between a
/// file's sections, as a doctest's do).
#[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
pub fn mine(sections: &[crate::index::Section]) -> (Vec<Prediction>, MineReport) {
    use crate::sandbox::{RunOptions, RunStatus, run};
    let mut report = MineReport::default();
    let mut out = Vec::new();
    let files: std::collections::BTreeSet<&str> = sections.iter().map(|s| s.file.as_str()).collect();
    for file in files {
        // (section, step) in reading order.
        let all: Vec<(u32, Step)> = sections
            .iter()
            .filter(|s| s.file == file)
            .flat_map(|s| steps(&s.text).into_iter().map(move |st| (s.id, st)))
            .collect();
        let mut tasks = Vec::new();
        let mut asked = Vec::new();
        for (i, (_, st)) in all.iter().enumerate() {
            if !askable(&st.source, &st.output) {
                continue;
            }
            let setup: Vec<usize> = (i.saturating_sub(LOOKBACK)..i).filter(|&j| usable_setup(&all[j].1)).collect();
            let lines: Vec<&str> = setup.iter().map(|&j| all[j].1.source.as_str()).collect();
            tasks.push(serde_json::json!({ "setup": lines, "target": st.source, "expect": st.output }).to_string());
            asked.push(Asked::Step(i, setup));
        }
        for s in sections.iter().filter(|s| s.file == file) {
            for (offset, program, output) in programs(s) {
                tasks.push(serde_json::json!({ "program": program, "expect": output }).to_string());
                asked.push(Asked::Program(s.id, offset, program, output));
            }
        }
        if tasks.is_empty() {
            continue;
        }
        report.askable += tasks.len();
        let opts = RunOptions { stdin: tasks.join("\n"), timeout_ms: 120_000, max_output_bytes: 16 << 20, ..RunOptions::default() };
        let result = run(include_str!("predict.py"), &opts);
        if result.status != RunStatus::Ok {
            report.failed_files.push(format!("{file}: {:?} {}", result.status, result.stderr.lines().last().unwrap_or("")));
            continue;
        }
        for (asked, line) in asked.into_iter().zip(result.stdout.lines()) {
            let Ok(solved) = serde_json::from_str::<Solved>(line) else { continue };
            if !solved.ok {
                continue;
            }
            report.reproduced += 1;
            if solved.shown.len() > MAX_SETUP {
                continue;
            }
            let mut wrong: Vec<WrongOutput> = solved
                .wrong
                .into_iter()
                .filter(|w| w.output.chars().count() <= MAX_OUTPUT_CHARS && w.output.lines().count() <= MAX_WRONG_LINES)
                // Two misreadings at once of two different things (not `/` and `//` both swapped).
                .filter(|w| pair(&w.rule).is_none_or(|(a, b)| concept(a) != concept(b)))
                .map(|w| WrongOutput { output: w.output, rule: w.rule, code: w.code, earlier: w.line >= 0 })
                .collect();
            by_rank(&mut wrong);
            // Two misreadings at once only fill the last option: an item tests two single ones.
            // With fewer, a line is kept for what needs one stated misreading (a "why" or
            // "judge" item, a creative question), with only its single misreadings that say
            // something about what the lines teach (not a string's quotes alone).
            if wrong.iter().filter(|w| pair(&w.rule).is_none()).count() < WRONG - 1 {
                let program = matches!(asked, Asked::Program(..));
                wrong.retain(|w| pair(&w.rule).is_none() && !aside(&w.rule, program));
                if !wrong.iter().any(|w| belief(&w.rule).is_some()) {
                    continue;
                }
            }
            // Two misreadings and "an error" where no two at once give a third output, for code
            // that is not a yes/no question: whether a line runs at all is what a learner unsure
            // of the rule doubts.
            let output = match &asked {
                Asked::Step(i, _) => all[*i].1.output.trim(),
                Asked::Program(_, _, _, o) => o.trim(),
            };
            if wrong.len() == WRONG - 1 && !["True", "False"].contains(&output) {
                wrong.push(WrongOutput { output: NO_ERROR.into(), rule: "no_error".into(), code: String::new(), earlier: false });
            }
            if wrong.len() >= WRONG {
                report.kept += 1;
            } else {
                report.kept_explained += 1;
            }
            out.push(match asked {
                Asked::Step(i, setup) => {
                    let (section, st) = &all[i];
                    Prediction {
                        section: *section,
                        offset: st.offset as u32,
                        setup: solved.shown.iter().map(|&k| all[setup[k]].1.source.clone()).collect(),
                        setup_output: solved.shown.iter().map(|&k| all[setup[k]].1.output.clone()).collect(),
                        code: st.source.clone(),
                        output: st.output.clone(),
                        wrong,
                        program: false,
                    }
                }
                Asked::Program(section, offset, code, output) => {
                    Prediction { section, offset: offset as u32, setup: Vec::new(), setup_output: Vec::new(), code, output, wrong, program: true }
                }
            });
        }
    }
    (out, report)
}

/// A line and its misreadings that unit tests of the items made from it share.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::{Prediction, WrongOutput};

    pub fn wrong(output: &str, rule: &str, code: &str) -> WrongOutput {
        WrongOutput { output: output.into(), rule: rule.into(), code: code.into(), earlier: false }
    }

    /// `word[2:5]` after `word = 'Python'`, with three misreadings.
    pub fn sliced() -> Prediction {
        Prediction {
            section: 0,
            offset: 0,
            setup: vec!["word = 'Python'\n".into()],
            setup_output: vec![String::new()],
            code: "word[2:5]\n".into(),
            output: "'tho'".into(),
            wrong: vec![wrong("'thon'", "slice_end", "word[2:6]"), wrong("'yth'", "slice_from_one", "word[1:4]"), wrong("tho", "display", "print(word[2:5])")],
            program: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swapped_method_is_about_its_kind_of_object() {
        assert_eq!(concept("method:keys:values"), Some("dictionaries"));
        assert_eq!(concept("method:append:extend"), Some("list methods"));
        assert_eq!(concept("method:upper:lower"), Some("string methods"));
        assert_eq!(concept("method:union:intersection"), Some("sets"));
        assert_eq!(concept("method:count:index"), Some("methods"), "lists and strings both have it");
        assert_eq!(concept("slice_end+display"), Some("slicing"));
    }

    #[test]
    fn steps_read_prompts_continuations_and_outputs() {
        let text = "Intro.\n\n>>> word = 'Python'\n>>> word[0:2]  # from 0 to 2 (excluded)\n'Py'\n>>> for i in range(2):\n...     print(i)\n...\n0\n1\n\nAfter.\n>>> s = '#'  # a hash\n";
        let s = steps(text);
        assert_eq!(s.len(), 4);
        assert_eq!(s[0].source, "word = 'Python'\n");
        assert_eq!(s[0].output, "");
        assert_eq!(s[1].source, "word[0:2]\n");
        assert_eq!(s[1].output, "'Py'");
        assert_eq!(&text[s[1].offset..s[1].offset + 3], ">>>");
        assert_eq!(s[2].source, "for i in range(2):\n    print(i)\n\n");
        assert_eq!(s[2].output, "0\n1");
        assert_eq!(s[3].source, "s = '#'\n");
    }

    #[test]
    fn askable_leaves_out_errors_addresses_and_chance() {
        assert!(askable("word[0:2]\n", "'Py'"));
        assert!(!askable("word[0] = 'J'\n", "Traceback (most recent call last):\nTypeError: …"));
        assert!(!askable("f\n", "<function f at 0x7f...>"));
        assert!(!askable("random.choice(x)\n", "3"));
        assert!(!askable("x = 1\n", ""));
    }

    #[test]
    fn transcript_and_rationale_read_as_the_book() {
        let p = Prediction {
            section: 0,
            offset: 0,
            setup: vec!["word = 'Python'\n".into()],
            setup_output: vec![String::new()],
            code: "word[0:2]\n".into(),
            output: "'Py'".into(),
            wrong: vec![],
            program: false,
        };
        assert_eq!(p.transcript(), ">>> word = 'Python'\n>>> word[0:2]");
        let w = WrongOutput { output: "'Pyt'".into(), rule: "slice_end".into(), code: "word[0:3]".into(), earlier: false };
        assert!(p.rationale(&w).starts_with("This is what `word[0:3]` shows. A slice stops"));
        let m = WrongOutput { output: "x".into(), rule: "method:append:extend".into(), code: "a.extend(1)".into(), earlier: false };
        assert!(p.rationale(&m).contains("`.extend()` gives; the code calls `.append()`"));
        // Two misreadings at once: both reasons, the first one's concept.
        let both = WrongOutput { output: "Pyt".into(), rule: "slice_end+display".into(), code: "print(word[0:3])".into(), earlier: false };
        let why = p.rationale(&both);
        assert!(why.starts_with("This is what `print(word[0:3])` shows. A slice stops") && why.contains("with its quotes"), "{why}");
        assert_eq!(concept(&both.rule), Some("slicing"));
    }

    #[cfg(all(feature = "sandbox", not(target_arch = "wasm32")))]
    #[test]
    fn single_misreadings_come_first_one_rule_each() {
        let w = |rule: &str, output: &str| WrongOutput { output: output.into(), rule: rule.into(), code: String::new(), earlier: false };
        let mut wrong = vec![w("slice_end+display", "a"), w("display", "b"), w("slice_end", "c"), w("slice_end", "d"), w("slice_from_one", "e")];
        by_rank(&mut wrong);
        let order: Vec<&str> = wrong.iter().map(|w| w.output.as_str()).collect();
        assert_eq!(order, ["c", "e", "b", "d", "a"]);
    }
}
