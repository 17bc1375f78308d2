//! Safe Markdown for model answers: a small tree of known elements, rendered as Yew nodes.
//!
//! Nothing from the text ever becomes markup: raw HTML (`<img src=x onerror=…>`, `<script>`) is
//! shown as literal text, links and images keep only their text (no `href`, no `src`), and no
//! attribute comes from the input. `[n]` citations become [`Node::Cite`], which the caller
//! renders as a link to the cited passage.

use pulldown_cmark::{Event, Options, Parser, Tag as MdTag, TagEnd};
use yew::prelude::*;

/// Elements the renderer emits; nothing else can appear.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    P,
    /// Answer headings sit below the page's own: h4–h6.
    H(u8),
    Ul,
    Ol,
    Li,
    Quote,
    Em,
    Strong,
    Del,
    /// A link's or image's text, without its target.
    Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    El(Tag, Vec<Node>),
    Text(String),
    /// Inline code.
    Code(String),
    /// A code block.
    Pre(String),
    /// A citation `[n]` of passage `n` (1-based, at most the number of passages).
    Cite(usize),
    Break,
    Rule,
}

/// Parses Markdown into safe nodes; `[n]` with `1 <= n <= max_cite` become citations. An
/// interactive session written without its fence (`>>> x = 10`) is a code block, not a quote.
pub fn parse(md: &str, max_cite: usize) -> Vec<Node> {
    let md = inference::agent::ask::verify::fence_sessions(md);
    let mut stack: Vec<(Tag, Vec<Node>)> = vec![(Tag::Span, Vec::new())];
    let mut code: Option<String> = None;
    for event in Parser::new_ext(&md, Options::ENABLE_STRIKETHROUGH) {
        if let Some(buf) = code.as_mut() {
            match event {
                Event::End(TagEnd::CodeBlock) => {
                    let text = code.take().unwrap_or_default();
                    push(&mut stack, Node::Pre(text));
                }
                Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => buf.push_str(&t),
                _ => {}
            }
            continue;
        }
        match event {
            Event::Start(tag) => match tag {
                MdTag::CodeBlock(_) => code = Some(String::new()),
                other => stack.push((open(&other), Vec::new())),
            },
            Event::End(_) => {
                if stack.len() > 1 {
                    let (tag, children) = stack.pop().expect("checked");
                    push(&mut stack, Node::El(tag, children));
                }
            }
            Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                push_text(&mut stack, &t)
            }
            Event::FootnoteReference(t) => push_text(&mut stack, &format!("[^{t}]")),
            Event::Code(t) => push(&mut stack, Node::Code(t.into_string())),
            Event::SoftBreak => push_text(&mut stack, "\n"),
            Event::HardBreak => push(&mut stack, Node::Break),
            Event::Rule => push(&mut stack, Node::Rule),
            Event::TaskListMarker(done) => push_text(&mut stack, if done { "[x] " } else { "[ ] " }),
        }
    }
    if let Some(text) = code {
        push(&mut stack, Node::Pre(text)); // an unterminated fence while streaming
    }
    while stack.len() > 1 {
        let (tag, children) = stack.pop().expect("checked");
        push(&mut stack, Node::El(tag, children));
    }
    let (_, nodes) = stack.pop().expect("root");
    nodes.into_iter().map(|n| cite(n, max_cite)).flat_map(|n| n).collect()
}

fn open(tag: &MdTag) -> Tag {
    match tag {
        MdTag::Paragraph | MdTag::HtmlBlock => Tag::P,
        MdTag::Heading { level, .. } => Tag::H((*level as u8 + 3).min(6)),
        MdTag::BlockQuote(_) => Tag::Quote,
        MdTag::List(Some(_)) => Tag::Ol,
        MdTag::List(None) => Tag::Ul,
        MdTag::Item => Tag::Li,
        MdTag::Emphasis => Tag::Em,
        MdTag::Strong => Tag::Strong,
        MdTag::Strikethrough => Tag::Del,
        _ => Tag::Span,
    }
}

fn push(stack: &mut [(Tag, Vec<Node>)], node: Node) {
    stack.last_mut().expect("root").1.push(node);
}

/// Appends text, merged with the text before it (the parser splits `[1]` into pieces).
fn push_text(stack: &mut [(Tag, Vec<Node>)], text: &str) {
    let children = &mut stack.last_mut().expect("root").1;
    match children.last_mut() {
        Some(Node::Text(t)) => t.push_str(text),
        _ => children.push(Node::Text(text.to_string())),
    }
}

/// Splits citations out of text nodes, recursively.
fn cite(node: Node, max: usize) -> Vec<Node> {
    match node {
        Node::Text(t) => {
            let mut out = Vec::new();
            let mut at = 0;
            for c in inference::agent::ask::citations(&t, max) {
                if c.start > at {
                    out.push(Node::Text(t[at..c.start].to_string()));
                }
                out.push(Node::Cite(c.n));
                at = c.end;
            }
            if at < t.len() {
                out.push(Node::Text(t[at..].to_string()));
            }
            out
        }
        Node::El(tag, children) => vec![Node::El(tag, children.into_iter().flat_map(|c| cite(c, max)).collect())],
        other => vec![other],
    }
}

/// Renders nodes; `cite` draws each citation (the caller knows the passages).
pub fn render(nodes: &[Node], cite: &dyn Fn(usize) -> Html) -> Html {
    nodes.iter().map(|n| render_node(n, cite)).collect::<Html>()
}

fn render_node(node: &Node, cite: &dyn Fn(usize) -> Html) -> Html {
    match node {
        Node::Text(t) => html! { { t.clone() } },
        Node::Code(t) => html! { <code>{ t.clone() }</code> },
        Node::Pre(t) => html! { <pre><code>{ t.clone() }</code></pre> },
        Node::Cite(n) => cite(*n),
        Node::Break => html! { <br /> },
        Node::Rule => html! { <hr /> },
        Node::El(tag, children) => {
            let inner = render(children, cite);
            match tag {
                Tag::P => html! { <p>{ inner }</p> },
                Tag::H(4) => html! { <h4>{ inner }</h4> },
                Tag::H(5) => html! { <h5>{ inner }</h5> },
                Tag::H(_) => html! { <h6>{ inner }</h6> },
                Tag::Ul => html! { <ul>{ inner }</ul> },
                Tag::Ol => html! { <ol>{ inner }</ol> },
                Tag::Li => html! { <li>{ inner }</li> },
                Tag::Quote => html! { <blockquote>{ inner }</blockquote> },
                Tag::Em => html! { <em>{ inner }</em> },
                Tag::Strong => html! { <strong>{ inner }</strong> },
                Tag::Del => html! { <del>{ inner }</del> },
                Tag::Span => html! { <span>{ inner }</span> },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(nodes: &[Node]) -> String {
        nodes
            .iter()
            .map(|n| match n {
                Node::Text(t) | Node::Code(t) | Node::Pre(t) => t.clone(),
                Node::El(_, c) => text_of(c),
                Node::Cite(n) => format!("<cite {n}>"),
                Node::Break | Node::Rule => String::new(),
            })
            .collect()
    }

    #[test]
    fn raw_html_stays_text() {
        let md = "Look: <img src=x onerror=\"alert(1)\"> and <script>alert(2)</script>\n\n<div onclick=x>block</div>";
        let nodes = parse(md, 0);
        let text = text_of(&nodes);
        assert!(text.contains("<img src=x onerror=\"alert(1)\">"), "{text}");
        assert!(text.contains("<script>alert(2)</script>"));
        assert!(text.contains("<div onclick=x>block</div>"));
        assert!(matches!(&nodes[0], Node::El(Tag::P, _)));
    }

    #[test]
    fn links_and_images_keep_only_their_text() {
        let nodes = parse("[click](javascript:alert(1)) ![pic](x.png \"t\") <http://evil.example>", 0);
        let all = format!("{nodes:?}");
        assert!(!all.contains("javascript") && !all.contains("x.png"), "{all}");
        assert_eq!(text_of(&nodes), "click pic http://evil.example");
    }

    #[test]
    fn structure_and_citations() {
        let nodes = parse("# Title\n\nDefaults fill in [1]. Also [2, 3] and [9].\n\n- **bold** `x`\n\n```py\nf([1])\n```", 3);
        assert!(matches!(&nodes[0], Node::El(Tag::H(4), _)));
        let Node::El(Tag::P, p) = &nodes[1] else { panic!("{nodes:?}") };
        let cites: Vec<usize> = p.iter().filter_map(|n| if let Node::Cite(n) = n { Some(*n) } else { None }).collect();
        assert_eq!(cites, [1, 2, 3], "[9] is out of range and stays text");
        assert!(text_of(p).contains("[9]"));
        assert!(matches!(&nodes[2], Node::El(Tag::Ul, _)));
        assert_eq!(nodes[3], Node::Pre("f([1])\n".into()), "code is never scanned for citations");
    }

    #[test]
    fn the_books_example_right_after_its_sentence_is_a_code_block() {
        // Ask's opening: a cited sentence that introduces the book's example, the example fenced
        // on the next line, then the next sentence.
        let nodes = parse("Run the venv module with the directory path [1]:\n```\npython3 -m venv env\n```\nA common location is .venv [1].", 1);
        let Node::El(Tag::P, p) = &nodes[0] else { panic!("{nodes:?}") };
        assert!(p.contains(&Node::Cite(1)));
        assert_eq!(nodes[1], Node::Pre("python3 -m venv env\n".into()));
        assert!(matches!(&nodes[2], Node::El(Tag::P, p) if p.contains(&Node::Cite(1))), "{nodes:?}");
    }

    #[test]
    fn a_session_without_its_fence_is_a_code_block() {
        // The model copies the book's session unfenced, then goes on after a blank line; while
        // streaming the session is still open.
        let nodes = parse("Sessions look like this [1].\n>>> x = 10\n>>> def bar():\n...     print(x)\n\nThen call bar [1].", 1);
        assert_eq!(nodes[1], Node::Pre(">>> x = 10\n>>> def bar():\n...     print(x)\n".into()), "{nodes:?}");
        assert!(matches!(&nodes[2], Node::El(Tag::P, p) if p.contains(&Node::Cite(1))), "{nodes:?}");
        let streaming = parse("See [1].\n>>> 2 + 2\n4", 1);
        assert_eq!(streaming.last(), Some(&Node::Pre(">>> 2 + 2\n4\n".into())));
        // Inside a fence a session stays as it is.
        assert_eq!(parse("```\n>>> 1\n1\n```", 0), vec![Node::Pre(">>> 1\n1\n".into())]);
    }

    #[test]
    fn unterminated_fence_while_streaming() {
        let nodes = parse("Run:\n\n```bash\npip ins", 1);
        assert_eq!(nodes.last(), Some(&Node::Pre("pip ins".into())));
    }

    #[test]
    fn rendering_emits_no_raw_html() {
        let html = render(&parse("<b onmouseover=x>hi</b> [1]", 1), &|n| html! { <a data-n={n.to_string()}>{ n }</a> });
        let dump = format!("{html:?}");
        assert!(!dump.contains("VRaw"), "{dump}");
        assert!(dump.contains("<b onmouseover=x>"), "the tag is a text node's content");
    }
}
