//! How the conclusions changed (`history`): every history entry of every listing's claims.

use crate::data::Data;
use crate::esc;
use serde::Deserialize;

/// `history`: every history entry of every listing's claims, newest first, the part `show=`
/// names.
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct History {
    show: Show,
}

choice! {
    /// Which part of the claims' history `history` shows.
    enum Show {
        Summary = "summary" ("the counts"),
        Failures = "failures" ("changes after the data contradicted a claim"),
        Other = "other" ("every other change"),
        Retired = "retired" ("claims retired for good"),
    }
}

/// One change to one claim, for the page "How the conclusions changed".
struct Erratum<'a> {
    listing: String,
    id: &'a str,
    change: &'a measure::claims::Change,
    /// The version that replaced `change.was`; none for a claim retired for good.
    now: Option<&'a measure::claims::Claim>,
}

/// Every history entry of every listing's claims, newest first: `show=summary` (the counts),
/// `failures` (changes after the data contradicted a claim), `other` (reviews, redesigns,
/// invariants, bounds moved without a failure) or `retired`.
pub(super) fn history(data: &Data, d: &History) -> Result<String, String> {
    let show = d.show;
    let all: Vec<(String, std::rc::Rc<measure::Claims>)> = data
        .listings()
        .into_iter()
        .map(|l| data.claims(&l).map(|c| (l, c)))
        .collect::<Result<_, _>>()?;
    let mut rows: Vec<Erratum> = Vec::new();
    for (listing, claims) in &all {
        for claim in &claims.claims {
            for (i, change) in claim.history.iter().enumerate() {
                let now = claim.history.get(i + 1).map_or(claim, |next| &*next.was);
                rows.push(Erratum {
                    listing: listing.clone(),
                    id: &claim.id,
                    change,
                    now: Some(now),
                });
            }
        }
        for r in &claims.retired {
            for (i, change) in r.history.iter().enumerate() {
                let now = r
                    .history
                    .get(i + 1)
                    .map_or(&*r.change.was, |next| &*next.was);
                rows.push(Erratum {
                    listing: listing.clone(),
                    id: &r.id,
                    change,
                    now: Some(now),
                });
            }
            rows.push(Erratum {
                listing: listing.clone(),
                id: &r.id,
                change: &r.change,
                now: None,
            });
        }
    }
    rows.sort_by(|a, b| {
        (b.change.date.as_str(), &a.listing, a.id).cmp(&(a.change.date.as_str(), &b.listing, b.id))
    });
    if show == Show::Summary {
        let changed: std::collections::BTreeSet<(&str, &str)> = rows
            .iter()
            .filter(|r| r.now.is_some())
            .map(|r| (r.listing.as_str(), r.id))
            .collect();
        let changes: Vec<&Erratum> = rows.iter().filter(|r| r.now.is_some()).collect();
        let failures = changes
            .iter()
            .filter(|r| r.change.cause.after_a_failure())
            .count();
        let retired = rows.len() - changes.len();
        return Ok(format!(
            "Changes recorded: {}, to {} claims; made because the data contradicted the claim: {failures}. Claims retired for good: {retired}.",
            changes.len(),
            changed.len()
        ));
    }
    let chosen: Vec<&Erratum> = rows
        .iter()
        .filter(|r| match show {
            Show::Failures => r.now.is_some() && r.change.cause.after_a_failure(),
            Show::Other => r.now.is_some() && !r.change.cause.after_a_failure(),
            _ => r.now.is_none(),
        })
        .collect();
    if chosen.is_empty() {
        return Ok("<p>None.</p>\n".into());
    }
    let mut html = String::from(
        "<div class=\"measure-scroll\"><table class=\"measure history\"><thead><tr><th>date</th><th>claim</th><th>what changed</th><th>why, and the figures</th></tr></thead><tbody>",
    );
    for r in chosen {
        let was = &r.change.was;
        let version = |c: &measure::claims::Claim| {
            format!(
                "“{}” ({}: {})",
                esc(&c.says),
                c.kind.name(),
                esc(&c.bound_text())
            )
        };
        let what = match r.now {
            Some(now) => format!(
                "{}<br>was: {}<br>now: {}",
                esc(&measure::history::differences(was, now).join(", ")),
                version(was),
                version(now)
            ),
            None => format!("retired: {}", version(was)),
        };
        let commit = r
            .change
            .commit
            .as_ref()
            .map(|c| format!(" (commit <code>{}</code>)", esc(c)))
            .unwrap_or_default();
        let renamed = if was.id != r.id {
            format!("<br>was <code>{}</code>", esc(&was.id))
        } else {
            String::new()
        };
        html.push_str(&format!(
            "<tr><td>{}{commit}</td><td><a href=\"{}.html\">{}</a>: <code>{}</code>{renamed}</td><td>{what}</td><td><strong>{}</strong>: {}<br>Figures: {}</td></tr>",
            esc(&r.change.date),
            esc(&r.listing),
            esc(&r.listing),
            esc(r.id),
            esc(r.change.cause.words()),
            esc(&r.change.why),
            esc(&r.change.figures)
        ));
    }
    html.push_str("</tbody></table></div>\n");
    Ok(html)
}

#[cfg(test)]
mod tests {
    use super::super::typed;

    #[test]
    fn history_shows_one_of_four_parts_and_needs_one() {
        let e = typed("{{#measure history}}").err().unwrap();
        assert_eq!(
            e,
            "missing `show=…` (e.g. `{{#measure history show=failures}}`)"
        );
        let e = typed("{{#measure history show=all}}").err().unwrap();
        assert_eq!(
            e,
            "show=`all`: use summary (the counts), failures (changes after the data contradicted a claim), other (every other change) or retired (claims retired for good)"
        );
        assert!(typed("{{#measure history show=retired}}").is_ok());
    }
}
