//! What a list walk (`paginate`) found wrong, sorted by the rule it breaks:
//! what was listed is the step's own rule; how it was paged is stable
//! cursors (PAGE-005, a SHOULD), whatever the step cites.

use std::collections::btree_map::Entry;
use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// The problems of one walk, as it goes.
#[derive(Debug, Default)]
pub(super) struct WalkProblems {
    /// Breaks the step's own rule: the listing.
    pub listing: Vec<String>,
    /// Breaks stable cursors: the paging.
    pub paging: Vec<String>,
    /// Each key seen, with the page it was first on.
    keys: BTreeMap<String, u32>,
    /// Every cursor followed: one coming back means the walk never ends.
    followed: BTreeSet<String>,
    /// The page whose paging problem ended the walk before the list did.
    pub stopped_at: Option<u32>,
}

impl WalkProblems {
    /// Notes the key of an item on `page`. The same key twice on one page
    /// is the listing's fault; on a later page, the paging's.
    pub fn item(&mut self, key: &Value, page: u32) {
        match self.keys.entry(key.to_string()) {
            Entry::Vacant(entry) => {
                entry.insert(page);
            }
            Entry::Occupied(first) if *first.get() == page => {
                self.listing.push(format!("{key} appears twice on page {page}"));
            }
            Entry::Occupied(first) => {
                let first = first.get();
                self.paging
                    .push(format!("{key} is on page {first} and again on page {page}"));
            }
        }
    }

    /// Notes a page answered without a result. With a cursor sent, the
    /// server refused a cursor it handed out itself.
    pub fn refused(&mut self, page: u32, with_cursor: bool, answer: &str) {
        let problem = format!("page {page} was answered with {answer}");
        if with_cursor {
            self.paging.push(problem);
            self.stopped_at = Some(page);
        } else {
            self.listing.push(problem);
        }
    }

    /// Whether the walk follows page `page`'s `next` cursor: not when it
    /// was followed before (noted, since the walk would never end).
    pub fn follows(&mut self, next: &Value, page: u32) -> bool {
        let new = self.followed.insert(next.to_string());
        if !new {
            self.paging.push(format!(
                "page {page}'s nextCursor {next} was followed before: the walk would never end"
            ));
            self.stopped_at = Some(page);
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn an_item_on_two_pages_is_paging_and_twice_on_one_page_is_the_listing() {
        let mut walk = WalkProblems::default();
        walk.item(&json!("echo"), 1);
        walk.item(&json!("add"), 1);
        walk.item(&json!("add"), 1);
        walk.item(&json!("echo"), 2);
        assert_eq!(walk.listing, ["\"add\" appears twice on page 1"]);
        assert_eq!(walk.paging, ["\"echo\" is on page 1 and again on page 2"]);
        // A repeated item does not stop the walk.
        assert_eq!(walk.stopped_at, None);
    }

    #[test]
    fn a_cursor_that_comes_back_is_paging() {
        let mut walk = WalkProblems::default();
        assert!(walk.follows(&json!("c1"), 1));
        assert!(walk.follows(&json!("c2"), 2));
        assert!(!walk.follows(&json!("c1"), 3));
        assert!(walk.listing.is_empty());
        assert_eq!(
            walk.paging,
            ["page 3's nextCursor \"c1\" was followed before: the walk would never end"]
        );
        assert_eq!(walk.stopped_at, Some(3));
    }

    #[test]
    fn a_refused_first_page_is_the_listing_and_a_refused_cursor_is_paging() {
        let mut walk = WalkProblems::default();
        walk.refused(1, false, "error -32603");
        assert_eq!(walk.stopped_at, None);
        walk.refused(2, true, "error -32602");
        assert_eq!(walk.stopped_at, Some(2));
        assert_eq!(walk.listing, ["page 1 was answered with error -32603"]);
        assert_eq!(walk.paging, ["page 2 was answered with error -32602"]);
    }
}
