//! Whether a criterion is written in a language the rubric reads. Its word
//! lists are English; a criterion in another language is never judged by
//! them (and never blocked for its language).

use super::words::WordList;
use super::{Kind, Token};

static ENGLISH: WordList = WordList::new(&[
    "the", "a", "an", "is", "are", "and", "of", "to", "in", "on", "with", "when", "then", "given", "it", "be", "for",
    "by", "not", "no", "should", "must", "can", "after", "before", "each", "every", "has", "have", "does", "from",
]);

/// Function words of German, French, Spanish, Portuguese, Italian and Dutch
/// that are not also English words.
static OTHER: WordList = WordList::new(&[
    "der", "die", "das", "ist", "und", "nicht", "mit", "nach", "bei", "eine", "einer", "wird", "wenn", "kein", "keine",
    "für", "auf", "dem", "den", "des", "le", "la", "les", "est", "une", "des", "du", "pour", "avec", "après", "si",
    "et", "pas", "el", "los", "las", "es", "se", "con", "una", "por", "tras", "y", "del", "al", "mientras", "o", "os",
    "é", "até", "um", "uma", "ser", "fica", "em", "na", "no", "não", "il", "di", "che", "non", "un", "sur", "dans",
    "au", "aux", "qui", "het", "een", "niet", "wordt", "van", "voor",
]);

/// Whether the criterion reads as another language than English: more of
/// its function words belong to another language, or its letters are not
/// Latin.
pub(super) fn foreign(tokens: &[Token]) -> bool {
    let words = tokens.iter().filter(|t| t.kind == Kind::Word);
    let (mut english, mut other, mut latin, mut script) = (0, 0, 0, 0);
    for t in words {
        let w = t.word.as_str();
        english += usize::from(ENGLISH.contains(&w));
        other += usize::from(OTHER.contains(&w) && !ENGLISH.contains(&w));
        for c in w.chars().filter(|c| c.is_alphabetic()) {
            if c.is_ascii() || ('\u{c0}'..='\u{24f}').contains(&c) {
                latin += 1;
            } else {
                script += 1;
            }
        }
    }
    other > english || script > latin
}

#[cfg(test)]
mod tests {
    use super::super::tokenize;
    use super::*;

    #[test]
    fn other_languages_are_told_apart() {
        for text in [
            "Die Dokumentation ist aktualisiert",
            "El sistema envía un correo de confirmación tras el registro",
            "L'API renvoie 404 pour un identifiant inconnu",
            "ログイン後にダッシュボードが表示される",
        ] {
            assert!(foreign(&tokenize(text)), "{text}");
        }
        for text in ["the feature works", "Sync on reconnection", "`GET /x` returns 200", "404 page for unknown routes"]
        {
            assert!(!foreign(&tokenize(text)), "{text}");
        }
    }
}
