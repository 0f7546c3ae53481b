//! What a reply cost, so that run reports can put dollars next to success rates.
//!
//! Providers report token counts, not money; a [`PriceTable`] turns counts into US dollars.
//! The built-in table covers common OpenAI and Anthropic models and is free for `local/*`
//! and `scripted/*`; a user file (TOML or JSON) overrides or extends it, because prices
//! change faster than releases.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{LlmError, TokenUsage};

/// The price of one model in US dollars per million tokens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Price {
    /// Uncached prompt tokens.
    pub input_per_mtok: f64,
    /// Completion tokens (including reasoning tokens).
    pub output_per_mtok: f64,
    /// Prompt tokens served from the provider's cache (charged instead of the input price).
    #[serde(default)]
    pub cached_per_mtok: f64,
}

impl Price {
    /// A price from the three per-million-token figures.
    pub const fn new(input_per_mtok: f64, output_per_mtok: f64, cached_per_mtok: f64) -> Self {
        Price {
            input_per_mtok,
            output_per_mtok,
            cached_per_mtok,
        }
    }

    /// The cost of `usage` at this price. Cached tokens are part of `usage.input` and are
    /// charged at the cached price only.
    pub fn cost(&self, usage: &TokenUsage) -> f64 {
        let cached = usage.cached.min(usage.input);
        let uncached = usage.input - cached;
        (uncached as f64 * self.input_per_mtok
            + cached as f64 * self.cached_per_mtok
            + usage.output as f64 * self.output_per_mtok)
            / 1_000_000.0
    }
}

/// Prices keyed by backend spec (`openai/gpt-4o`), bare model name (`gpt-4o`) or a prefix
/// of either (`local/` makes every local model free).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PriceTable {
    prices: BTreeMap<String, Price>,
}

/// When the built-in figures were read off the providers' pricing pages.
pub const BUILTIN_AS_OF: &str = "2025-10";

/// USD per million tokens (input, output, cached input) as published by the providers on
/// their pricing pages ([`BUILTIN_AS_OF`]). These figures may be stale: override them with
/// a price file (`PriceTable::load`) rather than trusting them for billing.
const BUILTIN: &[(&str, Price)] = &[
    // OpenAI
    ("openai/gpt-4o", Price::new(2.50, 10.00, 1.25)),
    ("openai/gpt-4o-mini", Price::new(0.15, 0.60, 0.075)),
    ("openai/gpt-4.1", Price::new(2.00, 8.00, 0.50)),
    ("openai/gpt-4.1-mini", Price::new(0.40, 1.60, 0.10)),
    ("openai/gpt-4.1-nano", Price::new(0.10, 0.40, 0.025)),
    ("openai/o3", Price::new(2.00, 8.00, 0.50)),
    ("openai/o3-mini", Price::new(1.10, 4.40, 0.55)),
    ("openai/o4-mini", Price::new(1.10, 4.40, 0.275)),
    ("openai/gpt-5", Price::new(1.25, 10.00, 0.125)),
    ("openai/gpt-5-mini", Price::new(0.25, 2.00, 0.025)),
    ("openai/gpt-5-nano", Price::new(0.05, 0.40, 0.005)),
    // Anthropic (cached = cache read price)
    ("anthropic/claude-opus-4", Price::new(15.00, 75.00, 1.50)),
    ("anthropic/claude-opus-4-1", Price::new(15.00, 75.00, 1.50)),
    ("anthropic/claude-sonnet-4", Price::new(3.00, 15.00, 0.30)),
    ("anthropic/claude-sonnet-4-5", Price::new(3.00, 15.00, 0.30)),
    ("anthropic/claude-haiku-4-5", Price::new(1.00, 5.00, 0.10)),
    ("anthropic/claude-3-7-sonnet", Price::new(3.00, 15.00, 0.30)),
    ("anthropic/claude-3-5-sonnet", Price::new(3.00, 15.00, 0.30)),
    ("anthropic/claude-3-5-haiku", Price::new(0.80, 4.00, 0.08)),
    ("anthropic/claude-3-opus", Price::new(15.00, 75.00, 1.50)),
    ("anthropic/claude-3-haiku", Price::new(0.25, 1.25, 0.03)),
    // Free: our own processes.
    ("local/", Price::new(0.0, 0.0, 0.0)),
    ("scripted/", Price::new(0.0, 0.0, 0.0)),
];

impl PriceTable {
    /// An empty table (every model costs $0).
    pub fn empty() -> Self {
        PriceTable::default()
    }

    /// The built-in table (see the source for figures; they may be stale).
    pub fn builtin() -> Self {
        PriceTable {
            prices: BUILTIN
                .iter()
                .map(|(key, price)| ((*key).to_string(), *price))
                .collect(),
        }
    }

    /// The built-in table overridden by a user file: TOML (`.toml`) or JSON (anything
    /// else), a map from spec, model name or prefix to a [`Price`].
    pub fn load(path: &Path) -> Result<Self, LlmError> {
        let bad = |problem: String| LlmError::PriceFile {
            path: path.to_path_buf(),
            problem,
        };
        let text =
            std::fs::read_to_string(path).map_err(|e| bad(format!("cannot read the file: {e}")))?;
        let user = Self::parse(&text, path.extension().is_some_and(|e| e == "toml"))
            .map_err(|e| bad(e.to_string()))?;
        let mut table = Self::builtin();
        table.merge(user);
        Ok(table)
    }

    /// Parses a price table from TOML (`toml = true`) or JSON text.
    pub fn parse(text: &str, toml: bool) -> Result<Self, String> {
        let prices: BTreeMap<String, Price> = if toml {
            toml::from_str(text).map_err(|e| e.to_string())?
        } else {
            serde_json::from_str(text).map_err(|e| e.to_string())?
        };
        for (key, price) in &prices {
            let figures = [
                price.input_per_mtok,
                price.output_per_mtok,
                price.cached_per_mtok,
            ];
            if figures.iter().any(|f| !f.is_finite() || *f < 0.0) {
                return Err(format!("price of `{key}` must be finite and not negative"));
            }
        }
        Ok(PriceTable { prices })
    }

    /// Adds `other`'s prices, replacing entries with the same key.
    pub fn merge(&mut self, other: PriceTable) {
        self.prices.extend(other.prices);
    }

    /// Sets one price.
    pub fn insert(&mut self, key: impl Into<String>, price: Price) {
        self.prices.insert(key.into(), price);
    }

    /// The price for a backend spec: the full spec, then the bare model name, then the
    /// longest key that is a prefix of either (so `claude-sonnet-4-20250514` matches
    /// `claude-sonnet-4`); `None` when nothing matches.
    pub fn lookup(&self, backend_spec: &str) -> Option<Price> {
        if let Some(price) = self.prices.get(backend_spec) {
            return Some(*price);
        }
        let model = backend_spec
            .split_once('/')
            .map_or(backend_spec, |(_, model)| model);
        if let Some(price) = self.prices.get(model) {
            return Some(*price);
        }
        self.prices
            .iter()
            .filter(|(key, _)| {
                backend_spec.starts_with(key.as_str()) || model.starts_with(key.as_str())
            })
            .max_by_key(|(key, _)| key.len())
            .map(|(_, price)| *price)
    }

    /// What `usage` cost on `backend_spec`; 0.0 for unknown models.
    pub fn cost(&self, backend_spec: &str, usage: &TokenUsage) -> f64 {
        self.lookup(backend_spec)
            .map_or(0.0, |price| price.cost(usage))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.prices.len()
    }

    /// Whether the table has no entries.
    pub fn is_empty(&self) -> bool {
        self.prices.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn usage(input: u64, output: u64, cached: u64) -> TokenUsage {
        TokenUsage {
            input,
            output,
            cached,
            reasoning: 0,
        }
    }

    #[test]
    fn full_spec_then_model_then_prefix() {
        let table = PriceTable::builtin();
        assert_eq!(
            table.lookup("openai/gpt-4o"),
            Some(Price::new(2.5, 10.0, 1.25))
        );
        // Bare model name under another provider prefix.
        let mut t = PriceTable::empty();
        t.insert("gpt-4o", Price::new(1.0, 2.0, 0.5));
        assert_eq!(
            t.lookup("openai-compatible/gpt-4o"),
            Some(Price::new(1.0, 2.0, 0.5))
        );
        // Dated ids match by longest prefix: gpt-4o-mini, not gpt-4o.
        assert_eq!(
            table.lookup("openai/gpt-4o-mini-2024-07-18"),
            Some(Price::new(0.15, 0.60, 0.075))
        );
        assert_eq!(
            table.lookup("anthropic/claude-sonnet-4-5-20250929"),
            Some(Price::new(3.0, 15.0, 0.3))
        );
        assert_eq!(table.lookup("local/smollm2"), Some(Price::default()));
        assert_eq!(table.lookup("scripted/x.jsonl"), Some(Price::default()));
        assert_eq!(table.lookup("openai/unknown-model"), None);
        assert_eq!(
            table.cost("openai/unknown-model", &usage(1000, 1000, 0)),
            0.0
        );
    }

    #[test]
    fn cached_tokens_are_charged_once_at_the_cached_price() {
        let price = Price::new(2.0, 10.0, 0.5);
        // 1M input of which 400k cached, 100k output.
        let cost = price.cost(&usage(1_000_000, 100_000, 400_000));
        let expected = 0.6 * 2.0 + 0.4 * 0.5 + 0.1 * 10.0;
        assert!((cost - expected).abs() < 1e-9, "{cost} != {expected}");
        // More cached than input (bad provider data) never goes negative.
        let odd = price.cost(&usage(10, 0, 20));
        assert!((odd - 10.0 * 0.5 / 1e6).abs() < 1e-12);
    }

    #[test]
    fn user_file_overrides_builtin() {
        let dir = tempfile::tempdir().expect("tempdir");
        let toml_path = dir.path().join("prices.toml");
        std::fs::write(
            &toml_path,
            "\"openai/gpt-4o\" = { input_per_mtok = 1.0, output_per_mtok = 4, cached_per_mtok = 0.5 }\n\
             \"my-model\" = { input_per_mtok = 3.0, output_per_mtok = 6.0 }\n",
        )
        .expect("write");
        let table = PriceTable::load(&toml_path).expect("load toml");
        assert_eq!(
            table.lookup("openai/gpt-4o"),
            Some(Price::new(1.0, 4.0, 0.5))
        );
        assert_eq!(
            table.lookup("openai-compatible/my-model"),
            Some(Price::new(3.0, 6.0, 0.0))
        );
        // The rest of the builtin table survives.
        assert!(table.lookup("openai/o3").is_some());

        let json_path = dir.path().join("prices.json");
        std::fs::write(
            &json_path,
            r#"{"anthropic/claude-3-5-haiku": {"input_per_mtok": 9, "output_per_mtok": 9, "cached_per_mtok": 9}}"#,
        )
        .expect("write");
        let table = PriceTable::load(&json_path).expect("load json");
        assert_eq!(
            table.lookup("anthropic/claude-3-5-haiku"),
            Some(Price::new(9.0, 9.0, 9.0))
        );

        std::fs::write(
            &json_path,
            r#"{"x": {"input_per_mtok": -1, "output_per_mtok": 0}}"#,
        )
        .expect("write");
        assert!(matches!(
            PriceTable::load(&json_path),
            Err(LlmError::PriceFile { .. })
        ));
        std::fs::write(&json_path, "not json").expect("write");
        assert!(matches!(
            PriceTable::load(&json_path),
            Err(LlmError::PriceFile { .. })
        ));
        assert!(matches!(
            PriceTable::load(&dir.path().join("missing.json")),
            Err(LlmError::PriceFile { .. })
        ));
    }
}
