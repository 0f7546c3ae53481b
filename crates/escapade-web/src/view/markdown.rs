//! The Markdown that `escapade report` writes (headings, pipe tables, lists, paragraphs)
//! as HTML, so the report page shows the very tables the terminal shows. pulldown-cmark
//! parses it (tables on); raw HTML in the text — a model's name, a scenario id — is shown
//! as text, never interpreted, and so are links and pictures (`[a](javascript:…)`,
//! `![a](http://elsewhere/…)`, `<http://…>`): the report writes none of its own, and the
//! names in it may be anyone's (a `serve` client names its participant and its inline
//! scenario), so a link would run another's script in the viewer's pages and a picture
//! would fetch from another site when the page opens. Headings move one level down under
//! the page's own.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd, html};

/// The report's Markdown as HTML, nothing in it interpreted as HTML, and its links and
/// pictures shown as they are written.
pub fn to_html(markdown: &str) -> String {
    // inside a link or a picture (how deep): its events are left out, its source shown
    let mut inside = 0usize;
    let parsed = Parser::new_ext(markdown, Options::ENABLE_TABLES).into_offset_iter();
    let events = parsed.filter_map(move |(event, range)| {
        match &event {
            Event::Start(Tag::Link { .. } | Tag::Image { .. }) => {
                inside += 1;
                return (inside == 1).then(|| Event::Text(markdown[range].to_string().into()));
            }
            Event::End(TagEnd::Link | TagEnd::Image) => {
                inside = inside.saturating_sub(1);
                return None;
            }
            _ if inside > 0 => return None,
            _ => {}
        }
        Some(event)
    });
    let events = events.map(|event| match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Heading {
            level,
            id,
            classes,
            attrs,
        }) => Event::Start(Tag::Heading {
            level: lower(level),
            id,
            classes,
            attrs,
        }),
        Event::End(TagEnd::Heading(level)) => Event::End(TagEnd::Heading(lower(level))),
        other => other,
    });
    let mut out = String::with_capacity(markdown.len() * 2);
    html::push_html(&mut out, events);
    out
}

/// One heading level down (the page has its own `<h1>`).
fn lower(level: HeadingLevel) -> HeadingLevel {
    match level {
        HeadingLevel::H1 => HeadingLevel::H2,
        HeadingLevel::H2 => HeadingLevel::H3,
        HeadingLevel::H3 => HeadingLevel::H4,
        HeadingLevel::H4 => HeadingLevel::H5,
        HeadingLevel::H5 | HeadingLevel::H6 => HeadingLevel::H6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_headings_and_paragraphs() {
        let md = "# escapade report\n\n## vis\n\n| difficulty | n | success (%) |\n|---:|---:|---:|\n| 1 | 6 | 0.0 ± 0.0 |\n\nEpisodes with errors: 0 of 6.\n\n- a `x<y>`\n";
        let html = to_html(md);
        assert!(html.contains("<h2>escapade report</h2>"), "{html}");
        assert!(html.contains("<h3>vis</h3>"), "{html}");
        assert!(
            html.contains("<th style=\"text-align: right\">success (%)</th>"),
            "{html}"
        );
        assert!(
            html.contains("<td style=\"text-align: right\">0.0 ± 0.0</td>"),
            "{html}"
        );
        assert!(!html.contains("---"), "the rule row is not a row: {html}");
        assert!(
            html.contains("<p>Episodes with errors: 0 of 6.</p>"),
            "{html}"
        );
        assert!(
            html.contains("<li>a <code>x&lt;y&gt;</code></li>"),
            "{html}"
        );
    }

    #[test]
    fn nothing_is_interpreted() {
        let html =
            to_html("| <script>alert(1)</script> |\n|---|\n| \"x\" |\n\n<img src=x onerror=y>");
        assert!(
            !html.contains("<script>") && !html.contains("<img"),
            "{html}"
        );
        assert!(html.contains("&lt;script&gt;"), "{html}");
    }

    #[test]
    fn links_and_pictures_are_text() {
        let md = "| agent |\n|---|\n| remote ![p](http://evil.example/q.png) [d](javascript:alert(2)) |\n\n\
                  <http://evil.example/a> [![i](x.png)](http://e) [`c`](http://e)";
        let html = to_html(md);
        for bad in ["<img", "<a ", "href"] {
            assert!(!html.contains(bad), "{bad}: {html}");
        }
        for shown in [
            "remote ![p](http://evil.example/q.png) [d](javascript:alert(2))",
            "&lt;http://evil.example/a&gt;",
            "[![i](x.png)](http://e)",
            "[`c`](http://e)",
        ] {
            assert!(html.contains(shown), "{shown}: {html}");
        }
    }
}
