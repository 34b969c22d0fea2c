//! The rule sets contextree knows, as the faces offer them (the app's rule-set list, the
//! settings' dialect choice): from core's table, so a new rule set appears everywhere at once.

use contextree_core::dialect::RULE_SETS;
use serde::Serialize;
use ts_rs::TS;

/// One rule set a user can pick.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RuleSetRow {
    /// `pi@1.6`: what `--dialect` and the app's switch take.
    pub name: &'static str,
    /// The agent: `pi` or `omp`.
    pub dialect: &'static str,
    /// The release whose code the rules were taken from (`pi 1.6.0`).
    pub reference: &'static str,
    /// The releases the rules stand for (`pi ≥ 0.86`).
    pub stands_for: &'static str,
}

/// Every rule set, agents in order, oldest first within an agent.
pub fn rule_sets() -> Vec<RuleSetRow> {
    RULE_SETS
        .iter()
        .map(|r| RuleSetRow { name: r.name, dialect: r.dialect.name(), reference: r.reference, stands_for: r.stands_for })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_set_is_offered_under_the_name_the_cli_takes() {
        let rows = rule_sets();
        assert_eq!(rows.len(), contextree_core::RuleSet::ALL.len());
        for (row, rules) in rows.iter().zip(contextree_core::RuleSet::ALL) {
            assert_eq!(row.name.parse::<contextree_core::RuleSet>().unwrap(), rules);
            assert_eq!(row.dialect, rules.dialect().name());
        }
        insta::assert_snapshot!(serde_json::to_string_pretty(&rows).unwrap());
    }
}
