//! The Markdown that `escapade report` writes (headings, pipe tables, lists, paragraphs)
//! as HTML, escaped, so the report page shows the very tables the terminal shows.

/// Escapes text for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// `code` spans and `**bold**` inside escaped text.
fn inline(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in escape(text).split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("<code>{part}</code>"));
        } else {
            for (j, p) in part.split("**").enumerate() {
                if j % 2 == 1 {
                    out.push_str(&format!("<b>{p}</b>"));
                } else {
                    out.push_str(p);
                }
            }
        }
    }
    out
}

fn cells(line: &str) -> Vec<&str> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    inner.split('|').map(str::trim).collect()
}

/// Renders report Markdown as HTML.
pub fn to_html(markdown: &str) -> String {
    let mut out = String::new();
    let lines: Vec<&str> = markdown.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        let trimmed = line.trim();
        if trimmed.is_empty() {
            i += 1;
        } else if let Some(level) =
            (1..=6).find(|n| trimmed.starts_with(&format!("{} ", "#".repeat(*n))))
        {
            let text = &trimmed[level + 1..];
            // the report's own title is the page's
            let level = (level + 1).min(6);
            out.push_str(&format!("<h{level}>{}</h{level}>\n", inline(text)));
            i += 1;
        } else if trimmed.starts_with('|') {
            let mut rows = Vec::new();
            while i < lines.len() && lines[i].trim().starts_with('|') {
                rows.push(lines[i]);
                i += 1;
            }
            let aligns: Vec<&str> = rows
                .get(1)
                .map(|r| {
                    cells(r)
                        .iter()
                        .map(|c| {
                            if c.ends_with(':') && !c.starts_with(':') {
                                "num"
                            } else {
                                ""
                            }
                        })
                        .collect()
                })
                .unwrap_or_default();
            let is_rule = |r: &str| {
                cells(r)
                    .iter()
                    .all(|c| c.chars().all(|ch| matches!(ch, '-' | ':')))
            };
            out.push_str("<table>\n");
            for (k, row) in rows.iter().enumerate() {
                if k == 1 && is_rule(row) {
                    continue;
                }
                let tag = if k == 0 { "th" } else { "td" };
                out.push_str("<tr>");
                for (c, cell) in cells(row).iter().enumerate() {
                    let class = aligns.get(c).copied().unwrap_or("");
                    out.push_str(&format!(
                        "<{tag} class=\"{class}\">{}</{tag}>",
                        inline(cell)
                    ));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table>\n");
        } else if trimmed.starts_with("- ") || trimmed.starts_with("* ") {
            out.push_str("<ul>\n");
            while i < lines.len()
                && (lines[i].trim().starts_with("- ") || lines[i].trim().starts_with("* "))
            {
                out.push_str(&format!("<li>{}</li>\n", inline(&lines[i].trim()[2..])));
                i += 1;
            }
            out.push_str("</ul>\n");
        } else {
            let mut para = Vec::new();
            while i < lines.len() {
                let t = lines[i].trim();
                if t.is_empty() || t.starts_with('#') || t.starts_with('|') || t.starts_with("- ") {
                    break;
                }
                para.push(inline(t));
                i += 1;
            }
            out.push_str(&format!("<p>{}</p>\n", para.join("\n")));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_headings_and_paragraphs() {
        let md = "# escapade report\n\n## vis\n\n| difficulty | n | success (%) |\n|---:|---:|---:|\n| 1 | 6 | 0.0 ± 0.0 |\n\nEpisodes with errors: 0 of 6.\n- a `x<y>`\n";
        let html = to_html(md);
        assert!(html.contains("<h2>escapade report</h2>"), "{html}");
        assert!(html.contains("<h3>vis</h3>"), "{html}");
        assert!(
            html.contains("<th class=\"num\">success (%)</th>"),
            "{html}"
        );
        assert!(html.contains("<td class=\"num\">0.0 ± 0.0</td>"), "{html}");
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
            to_html("| <script>alert(1)</script> |\n|---|\n| \"x\" |\n<img src=x onerror=y>");
        assert!(
            !html.contains("<script>") && !html.contains("<img"),
            "{html}"
        );
    }
}
