//! Strings that match a CRD's `pattern`: drawn from the regular expression's syntax tree
//! (`regex-syntax`: literals, classes, repetitions, alternations), then checked against the
//! expression as the apiextensions-apiserver does (kube-openapi's `Pattern`: an unanchored match)
//! and against the length bounds. A pattern whose strings the draw does not reach gives `None`.

use regex_syntax::hir::{Class, Hir, HirKind};

/// How many extra repetitions past a repetition's minimum a draw may add.
const EXTRA_REPEATS: u32 = 3;
/// Draws tried before giving up on a pattern.
const TRIES: usize = 8;

/// A string matching `pattern` with between `min` and `max` characters, drawing with `below`
/// (an index below its argument, which is > 0).
pub(crate) fn matching(pattern: &str, min: usize, max: usize, below: &mut dyn FnMut(usize) -> usize) -> Option<String> {
    let hir = regex_syntax::parse(pattern).ok()?;
    let re = regex::Regex::new(pattern).ok()?;
    (0..TRIES).find_map(|_| {
        let mut out = String::new();
        draw(&hir, below, &mut out)?;
        let n = out.chars().count();
        (n >= min && n <= max && re.is_match(&out)).then_some(out)
    })
}

fn draw(hir: &Hir, below: &mut dyn FnMut(usize) -> usize, out: &mut String) -> Option<()> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => {}
        HirKind::Literal(lit) => out.push_str(std::str::from_utf8(&lit.0).ok()?),
        HirKind::Class(Class::Unicode(class)) => {
            let ranges = class.ranges();
            if ranges.is_empty() {
                return None;
            }
            // Printable ASCII first where the class has any: the strings stay readable.
            let ascii: Vec<char> =
                ranges.iter().flat_map(|r| (r.start().max(' ')..=r.end().min('~')).take(64)).collect();
            if !ascii.is_empty() {
                out.push(ascii[below(ascii.len())]);
            } else {
                let r = ranges[below(ranges.len())];
                let span = (u32::from(r.end()) - u32::from(r.start())) as usize + 1;
                out.push(char::from_u32(u32::from(r.start()) + below(span.min(1 << 16)) as u32)?);
            }
        }
        HirKind::Class(Class::Bytes(class)) => {
            let ascii: Vec<u8> = class.ranges().iter().flat_map(|r| r.start()..=r.end().min(0x7e)).collect();
            if ascii.is_empty() {
                return None;
            }
            out.push(char::from(ascii[below(ascii.len())]));
        }
        HirKind::Repetition(rep) => {
            let top = rep.max.unwrap_or(rep.min + EXTRA_REPEATS).min(rep.min + EXTRA_REPEATS);
            let n = rep.min + below((top - rep.min) as usize + 1) as u32;
            for _ in 0..n {
                draw(&rep.sub, below, out)?;
            }
        }
        HirKind::Capture(cap) => draw(&cap.sub, below, out)?,
        HirKind::Concat(parts) => {
            for part in parts {
                draw(part, below, out)?;
            }
        }
        HirKind::Alternation(options) => draw(&options[below(options.len())], below, out)?,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counter() -> impl FnMut(usize) -> usize {
        let mut state = 7u64;
        move |n| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            ((state >> 33) % n as u64) as usize
        }
    }

    #[test]
    fn drawn_strings_match_their_pattern_and_bounds() {
        let mut below = counter();
        for pattern in [
            r"^[a-z]([-a-z0-9]*[a-z0-9])?$",
            r"^(Always|Never|OnFailure)$",
            r"^\d{3}-\d{4}$",
            r"^v[0-9]+\.[0-9]+$",
            r"^[A-Z][a-zA-Z]{2,5}$",
            r"^sha256:[a-f0-9]{64}$",
            r"prefix-",
        ] {
            let re = regex::Regex::new(pattern).unwrap();
            for _ in 0..50 {
                let s = matching(pattern, 0, 80, &mut below).unwrap_or_else(|| panic!("{pattern}: none drawn"));
                assert!(re.is_match(&s), "{pattern}: {s:?}");
            }
        }
        let s = matching(r"^[a-z]{2,10}$", 4, 5, &mut below).expect("a string of 4 or 5 letters");
        assert!((4..=5).contains(&s.len()), "{s:?}");
    }

    #[test]
    fn a_pattern_out_of_reach_gives_none() {
        let mut below = counter();
        // No string of at most 3 characters matches.
        assert_eq!(matching(r"^[a-z]{5}$", 0, 3, &mut below), None);
        // Not a regular expression.
        assert_eq!(matching(r"^[a-z", 0, 10, &mut below), None);
    }
}
