use super::*;

#[test]
fn nodes_carry_file_lines_and_columns() {
    let text = "agent: SWARM-AR\nlist:\n  - one\n  - \"two\"\n  - \"t\\u0077o\"\n";
    let tree = parse(text, 2).unwrap();
    let y = tree.root();
    assert_eq!((y.get("agent").unwrap().line(), y.get("agent").unwrap().col()), (2, 8));
    let list = y.get("list").unwrap().as_seq().unwrap();
    assert_eq!((list.get(1).unwrap().line(), list.get(1).unwrap().col()), (5, 5));
    assert_eq!(list.get(1).unwrap().as_str(), Some("two"));
    assert_eq!(y.key("list").unwrap().line, 3);
    // Values written verbatim are slices of the text; escaped ones are kept.
    let verbatim = |node: Node| tree.verbatim(node.id()).map(|s| s.as_ptr());
    assert_eq!(verbatim(y.get("agent").unwrap()), Some(text[7..].as_ptr()));
    assert_eq!(verbatim(list.get(2).unwrap()), None);
    assert_eq!(list.get(2).unwrap().as_str(), Some("two"));
    let unicode = parse("ü: \"é x\"\nb: y\n", 1).unwrap();
    assert_eq!(unicode.verbatim(unicode.root().get("b").unwrap().id()), Some("y"));
    assert_eq!(unicode.root().get("ü").unwrap().col(), 4);
}

#[test]
fn an_empty_value_sits_on_its_keys_line() {
    let tree = parse("a:\nb: 1\nc:\n  d:\n\n  e: ~\nf:\n", 10).unwrap();
    let y = tree.root();
    let at = |n: Node| (n.line(), n.col());
    assert_eq!(at(y.get("a").unwrap()), (10, 3));
    let c = y.get("c").unwrap();
    assert_eq!((at(c.get("d").unwrap()), at(c.get("e").unwrap())), ((13, 5), (15, 6)));
    assert_eq!(at(y.get("f").unwrap()), (16, 3));
    assert!(y.get("a").unwrap().is_null() && y.get("f").unwrap().is_null());
}

#[test]
fn typing_follows_yaml_plain_scalars() {
    let tree = parse("a: 400\nb: \"400\"\nc: +1\nd: ~\ne: 1.5\nf: yes\n", 1).unwrap();
    let y = tree.root();
    assert_eq!(y.get("a").unwrap().as_i64(), Some(400));
    assert_eq!(y.get("b").unwrap().as_i64(), None);
    assert_eq!(y.get("b").unwrap().as_str(), Some("400"));
    assert_eq!(y.get("c").unwrap().as_i64(), Some(1));
    assert!(y.get("d").unwrap().is_null());
    assert_eq!(y.get("e").unwrap().as_f64(), Some(1.5));
    assert_eq!(y.get("f").unwrap().as_str(), Some("yes"));
}

#[test]
fn aliases_stand_for_their_anchors_value_where_they_are_written() {
    let text = "base: &b {agent: SWARM-AR, repos: [a/b]}\nother: *b\nname: &n x\nagain: *n\n";
    let tree = parse(text, 5).unwrap();
    let y = tree.root();
    let other = y.get("other").unwrap();
    assert_eq!(other.get("agent").unwrap().as_str(), Some("SWARM-AR"));
    assert_eq!(other.get("repos").unwrap().as_seq().unwrap().get(0).unwrap().as_str(), Some("a/b"));
    assert_eq!((other.line(), other.get("repos").unwrap().line()), (6, 6));
    assert_eq!((y.get("again").unwrap().as_str(), y.get("again").unwrap().line()), (Some("x"), 8));
    assert!(parse("a: *nowhere\n", 1).is_err());
}

#[test]
fn merge_keys_add_the_entries_a_mapping_does_not_write() {
    let text = "base: &b {agent: X, size: 3}\nextra: &e {size: 9, owner: o}\nbrief:\n  <<: [*b, *e]\n  size: 4\n";
    let tree = parse(text, 1).unwrap();
    let brief = tree.root().get("brief").unwrap();
    let keys: Vec<&str> = brief.entries().iter().map(|(k, _)| k.name).collect();
    assert_eq!(keys, ["size", "agent", "owner"]);
    assert_eq!(brief.get("size").unwrap().as_i64(), Some(4));
    assert_eq!((brief.get("agent").unwrap().as_str(), brief.get("agent").unwrap().line()), (Some("X"), 4));
    assert_eq!(brief.get("owner").unwrap().as_str(), Some("o"));
    let quoted = parse("\"<<\": x\n", 1).unwrap();
    assert_eq!(quoted.root().get("<<").unwrap().as_str(), Some("x"));
    let err = parse("a:\n  <<: 3\n", 1).unwrap_err();
    assert_eq!((err.line, err.message.contains("merge key")), (2, true));
}

#[test]
fn an_alias_bomb_is_refused_at_the_stated_bound() {
    let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for level in 1..8 {
        let aliases = vec![format!("*a{}", level - 1); 10].join(", ");
        bomb.push_str(&format!("a{level}: &a{level} [{aliases}]\n"));
    }
    let err = parse(&bomb, 10).unwrap_err();
    assert!(err.message.contains(&format!("more than {MAX_ALIASED} values")), "{err}");
    assert_eq!(err.line, 13);
    let deep = format!("x: {}{}\n", "[".repeat(40), "]".repeat(40));
    let err = parse(&deep, 1).unwrap_err();
    assert!(err.message.contains("deeper"), "{err}");
    let block_deep: String = (0..40).map(|i| format!("{}k{i}:\n", "  ".repeat(i))).collect();
    assert!(parse(&block_deep, 1).unwrap_err().message.contains("deeper"));
}

#[test]
fn a_tab_separates_a_value_from_its_colon_as_a_space_does() {
    for (tabbed, spaced) in [
        ("agent:\tSWARM-AR\nrepos:\t[a/b]\n", "agent: SWARM-AR\nrepos: [a/b]\n"),
        ("- a:\tb\n-\tc\n", "- a: b\n- c\n"),
        ("{a:\tb, c:\t\"d:\te\"}\n", "{a: b, c: \"d:\te\"}\n"),
        ("ü:\tx\n", "ü: x\n"),
    ] {
        let (tabbed_tree, spaced_tree) = (parse(tabbed, 1).unwrap(), parse(spaced, 1).unwrap());
        assert_eq!(tabbed_tree.root(), spaced_tree.root(), "{tabbed:?}");
    }
    assert_eq!(parse("a:\tb\n", 1).unwrap().root().get("a").unwrap().col(), 4);
}

#[test]
fn integers_of_every_core_notation_and_core_tags_are_typed_by_the_schema() {
    let tree = parse("o: 0o17\nh: 0x1F\nd: -12\ni: .inf\nn: .NaN\ns: !!str 400\nt: !!int \"5\"\nu: ! 7\n", 1).unwrap();
    let y = tree.root();
    assert_eq!((y.get("o").unwrap().as_i64(), y.get("h").unwrap().as_i64()), (Some(15), Some(31)));
    assert_eq!(y.get("d").unwrap().as_i64(), Some(-12));
    assert_eq!(y.get("i").unwrap().as_f64(), Some(f64::INFINITY));
    assert!(y.get("n").unwrap().as_f64().is_some_and(f64::is_nan));
    assert_eq!((y.get("s").unwrap().as_str(), y.get("s").unwrap().as_i64()), (Some("400"), None));
    assert_eq!(y.get("t").unwrap().as_i64(), Some(5));
    assert_eq!(y.get("u").unwrap().as_str(), Some("7"));
    for not_a_number in ["0o", "0x", "0o8", "1_000", "1.2.3", ".", "0x+1", "e5"] {
        assert_eq!(plain_f64(not_a_number), None, "{not_a_number}");
    }
}

#[test]
fn duplicate_keys_and_second_documents_are_errors() {
    let err = parse("a: 1\nb: 2\na: 3\n", 2).unwrap_err();
    assert_eq!(err.line, 4);
    assert!(err.message.contains("the key `a` is repeated from line 2"));
    assert!(parse("a: 1\n---\nb: 2\n", 1).is_err());
}

#[test]
fn big_mappings_stay_linear_and_still_catch_duplicates() {
    let mut text: String = (0..50_000).map(|i| format!("k{i}: {i}\n")).collect();
    assert_eq!(parse(&text, 1).unwrap().root().as_map().unwrap().len(), 50_000);
    text.push_str("k20: again\n");
    let err = parse(&text, 1).unwrap_err();
    assert_eq!((err.line, err.message.as_str()), (50_001, "the key `k20` is repeated from line 21"));
}

proptest::proptest! {
    #[test]
    fn strings_are_what_is_not_null_number_or_bool(text in "[-+.~0-9a-zA-Z]{0,6}") {
        let typed = plain_is_null(&text) || plain_f64(&text).is_some() || plain_bool(&text).is_some();
        proptest::prop_assert_eq!(plain_is_string(&text), !typed);
    }

    #[test]
    fn numbers_read_as_str_parse_reads_them(text in "[-+]?[0-9]{0,9}\\.?[0-9]{0,9}") {
        let unsigned = text.strip_prefix('+').unwrap_or(&text);
        let expected = unsigned.parse::<f64>().ok().filter(|_| unsigned.bytes().any(|b| b.is_ascii_digit()));
        proptest::prop_assert_eq!(plain_f64(&text).map(f64::to_bits), expected.map(f64::to_bits));
    }
}
