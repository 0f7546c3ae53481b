//! The Markdown that `escapade report` writes (headings, pipe tables, lists, paragraphs)
//! as HTML, so the report page shows the very tables the terminal shows. pulldown-cmark
//! parses it (tables on); raw HTML in the text — a model's name, a scenario id — is shown
//! as text, never interpreted, and headings move one level down under the page's own.

use pulldown_cmark::{Event, HeadingLevel, Options, Parser, Tag, TagEnd, html};

/// The report's Markdown as HTML, nothing in it interpreted as HTML.
pub fn to_html(markdown: &str) -> String {
    let events = Parser::new_ext(markdown, Options::ENABLE_TABLES).map(|event| match event {
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
}
