//! PackStream codec: golden bytes, marker boundaries, limits and bad input, typed structures
//! and their version-dependent forms, and property tests.
//!
//! Golden bytes marked "spec" are the examples of the PackStream v1 specification
//! (neo4j.com/docs/bolt/current/packstream, "Data types") and of the Bolt structure semantics
//! page (neo4j.com/docs/bolt/current/bolt/structure-semantics).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use hopdb_bolt::packstream::{decode, to_bytes, DecodeLimits, Decoder, Encoder};
use hopdb_bolt::structs::{
    tag, BoltStruct, Date, DateTime, DateTimeZoneId, Duration, LegacyDateTimeZoneId, LocalDateTime, LocalTime, Node,
    Path, Point2D, Point3D, Relationship, Time, UnboundRelationship,
};
use hopdb_bolt::{DecodeError, EncodeError, StructFormat, Value};
use proptest::prelude::*;

fn limits() -> DecodeLimits {
    DecodeLimits::default()
}

fn round_trip(v: &Value) -> Vec<u8> {
    let bytes = to_bytes(v).unwrap();
    assert_eq!(&decode(&bytes, &limits()).unwrap(), v, "bytes {bytes:02X?}");
    bytes
}

fn hex(s: &str) -> Vec<u8> {
    s.split_whitespace()
        .map(|b| u8::from_str_radix(b, 16).unwrap())
        .collect()
}

#[test]
fn spec_golden_scalars() {
    assert_eq!(round_trip(&Value::Null), hex("C0"));
    assert_eq!(round_trip(&Value::Boolean(true)), hex("C3"));
    assert_eq!(round_trip(&Value::Boolean(false)), hex("C2"));
    // spec: 42 in every integer representation decodes to 42; the smallest is 2A.
    assert_eq!(round_trip(&Value::Integer(42)), hex("2A"));
    for form in ["C8 2A", "C9 00 2A", "CA 00 00 00 2A", "CB 00 00 00 00 00 00 00 2A"] {
        assert_eq!(decode(&hex(form), &limits()), Ok(Value::Integer(42)));
    }
    // spec: minimum and maximum Integer.
    assert_eq!(round_trip(&Value::Integer(i64::MIN)), hex("CB 80 00 00 00 00 00 00 00"));
    assert_eq!(round_trip(&Value::Integer(i64::MAX)), hex("CB 7F FF FF FF FF FF FF FF"));
    // spec: Float 1.23.
    assert_eq!(round_trip(&Value::Float(1.23)), hex("C1 3F F3 AE 14 7A E1 47 AE"));
    // spec: Bytes.
    assert_eq!(round_trip(&Value::Bytes(vec![])), hex("CC 00"));
    assert_eq!(round_trip(&Value::Bytes(vec![1, 2, 3])), hex("CC 03 01 02 03"));
    // spec: Strings.
    assert_eq!(round_trip(&"".into()), hex("80"));
    assert_eq!(round_trip(&"A".into()), hex("81 41"));
    let mut az = hex("D0 1A");
    az.extend(b'A'..=b'Z');
    assert_eq!(round_trip(&"ABCDEFGHIJKLMNOPQRSTUVWXYZ".into()), az);
    assert_eq!(
        round_trip(&"Größenmaßstäbe".into()),
        hex("D0 12 47 72 C3 B6 C3 9F 65 6E 6D 61 C3 9F 73 74 C3 A4 62 65")
    );
}

#[test]
fn spec_golden_containers() {
    assert_eq!(round_trip(&Value::list(Vec::<i64>::new())), hex("90"));
    assert_eq!(round_trip(&Value::list([1, 2, 3])), hex("93 01 02 03"));
    let mixed = Value::List(vec![1.into(), 2.0.into(), "three".into()]);
    assert_eq!(
        round_trip(&mixed),
        hex("93 01 C1 40 00 00 00 00 00 00 00 85 74 68 72 65 65")
    );
    let mut forty = hex("D4 28");
    forty.extend(1..=40u8);
    assert_eq!(round_trip(&Value::list(1..=40i64)), forty);
    assert_eq!(round_trip(&Value::Map(vec![])), hex("A0"));
    assert_eq!(
        round_trip(&Value::map([("one", "eins")])),
        hex("A1 83 6F 6E 65 84 65 69 6E 73")
    );
    let az: Vec<(String, Value)> = (b'A'..=b'Z')
        .map(|c| ((c as char).to_string(), Value::Integer(i64::from(c - b'A' + 1))))
        .collect();
    let mut expected = hex("D8 1A");
    for c in b'A'..=b'Z' {
        expected.extend([0x81, c, c - b'A' + 1]);
    }
    assert_eq!(round_trip(&Value::Map(az)), expected);
}

#[test]
fn spec_duplicate_keys_keep_the_last_value() {
    // spec: [("key_1", 1), ("key_2", 2), ("key_1", 3)] -> {"key_1": 3, "key_2": 2}
    let bytes = hex("A3 85 6B 65 79 5F 31 01 85 6B 65 79 5F 32 02 85 6B 65 79 5F 31 03");
    assert_eq!(
        decode(&bytes, &limits()).unwrap(),
        Value::map([("key_1", 3), ("key_2", 2)])
    );
    // Large maps take the indexed path.
    let mut big = hex("D8 12");
    for i in 0..18u8 {
        big.extend([0x81, b'a' + (i % 9), i]);
    }
    let v = decode(&big, &limits()).unwrap();
    assert_eq!(v.as_map().unwrap().len(), 9);
    assert_eq!(v.get("a"), Some(&Value::Integer(9)));
}

#[test]
fn integer_marker_boundaries() {
    let cases: &[(i64, &str)] = &[
        (-1, "FF"),
        (-16, "F0"),
        (-17, "C8 EF"),
        (-128, "C8 80"),
        (-129, "C9 FF 7F"),
        (127, "7F"),
        (128, "C9 00 80"),
        (32767, "C9 7F FF"),
        (-32768, "C9 80 00"),
        (32768, "CA 00 00 80 00"),
        (-32769, "CA FF FF 7F FF"),
        (2_147_483_647, "CA 7F FF FF FF"),
        (-2_147_483_648, "CA 80 00 00 00"),
        (2_147_483_648, "CB 00 00 00 00 80 00 00 00"),
        (-2_147_483_649, "CB FF FF FF FF 7F FF FF FF"),
    ];
    for (i, bytes) in cases {
        assert_eq!(round_trip(&Value::Integer(*i)), hex(bytes), "{i}");
    }
}

#[test]
fn sized_marker_boundaries() {
    // (size, expected header) for strings, bytes, lists and maps.
    let headers = |tiny: Option<u8>, base: u8| -> Vec<(usize, Vec<u8>)> {
        vec![
            (0, tiny.map_or(vec![base, 0], |t| vec![t])),
            (15, tiny.map_or(vec![base, 15], |t| vec![t | 15])),
            (16, vec![base, 16]),
            (255, vec![base, 0xFF]),
            (256, vec![base + 1, 0x01, 0x00]),
            (65_535, vec![base + 1, 0xFF, 0xFF]),
            (65_536, vec![base + 2, 0x00, 0x01, 0x00, 0x00]),
        ]
    };
    for (n, h) in headers(Some(0x80), 0xD0) {
        let b = round_trip(&Value::String("x".repeat(n)));
        assert_eq!(&b[..h.len()], &h[..], "string {n}");
        assert_eq!(b.len(), h.len() + n);
    }
    for (n, h) in headers(None, 0xCC) {
        let b = round_trip(&Value::Bytes(vec![7; n]));
        assert_eq!(&b[..h.len()], &h[..], "bytes {n}");
    }
    for (n, h) in headers(Some(0x90), 0xD4) {
        let b = round_trip(&Value::List(vec![Value::Null; n]));
        assert_eq!(&b[..h.len()], &h[..], "list {n}");
        assert_eq!(b.len(), h.len() + n);
    }
    for (n, h) in headers(Some(0xA0), 0xD8) {
        let m: Vec<(String, Value)> = (0..n).map(|i| (i.to_string(), Value::Null)).collect();
        let b = round_trip(&Value::Map(m));
        assert_eq!(&b[..h.len()], &h[..], "map {n}");
    }
}

#[test]
fn structures_and_their_markers() {
    let s = Value::Structure {
        tag: 0x7F,
        fields: vec![Value::Null; 15],
    };
    assert_eq!(round_trip(&s)[..2], [0xBF, 0x7F]);
    let too_many = Value::Structure {
        tag: 1,
        fields: vec![Value::Null; 16],
    };
    assert_eq!(
        to_bytes(&too_many),
        Err(EncodeError::TooManyFields { tag: 1, fields: 16 })
    );
    let bad_tag = Value::Structure {
        tag: 0x80,
        fields: vec![],
    };
    assert_eq!(to_bytes(&bad_tag), Err(EncodeError::InvalidTag { tag: 0x80 }));
    // spec (structure semantics): a 5.x Node starts B4 4E, a Relationship B8 52, an
    // UnboundRelationship B4 72.
    let node = Node {
        id: 3,
        labels: vec!["Example".into(), "Node".into()],
        properties: vec![("name".into(), "example".into())],
        element_id: "abc123".into(),
    };
    assert_eq!(round_trip(&node.clone().into_value())[..2], [0xB4, 0x4E]);
    let rel = Relationship {
        id: 11,
        start_node_id: 2,
        end_node_id: 3,
        rel_type: "KNOWS".into(),
        properties: vec![("name".into(), "example".into())],
        element_id: "abc123".into(),
        start_node_element_id: "def456".into(),
        end_node_element_id: "ghi789".into(),
    };
    assert_eq!(round_trip(&rel.into_value())[..2], [0xB8, 0x52]);
    let unbound = UnboundRelationship {
        id: 17,
        rel_type: "KNOWS".into(),
        properties: vec![("name".into(), "example".into())],
        element_id: "foo".into(),
    };
    assert_eq!(round_trip(&unbound.into_value())[..2], [0xB4, 0x72]);
}

#[test]
fn bad_input_gives_typed_errors() {
    let l = limits();
    let deep = [vec![0x91u8; 10_000], vec![0x01]].concat();
    assert_eq!(
        decode(&deep, &l),
        Err(DecodeError::DepthLimit {
            limit: 512,
            offset: 512
        })
    );
    let deep_maps: Vec<u8> = std::iter::repeat_n([0xA1, 0x81, b'k'], 10_000).flatten().collect();
    assert!(matches!(decode(&deep_maps, &l), Err(DecodeError::DepthLimit { .. })));
    let deep_structs: Vec<u8> = std::iter::repeat_n([0xB1, 0x01], 10_000).flatten().collect();
    assert!(matches!(decode(&deep_structs, &l), Err(DecodeError::DepthLimit { .. })));
    // A declared 2 GB string, list, map or byte array is refused before allocating.
    for (marker, what) in [(0xD2, "string"), (0xD6, "list"), (0xDA, "dictionary"), (0xCE, "bytes")] {
        let bytes = [marker, 0x7F, 0xFF, 0xFF, 0xFF, 0x00];
        assert_eq!(
            decode(&bytes, &l),
            Err(DecodeError::SizeLimit {
                what,
                declared: 0x7FFF_FFFF,
                limit: 64 * 1024 * 1024,
                offset: 0
            })
        );
        // Without a caller limit, the declared size is checked against what is left.
        let open = DecodeLimits {
            max_size: usize::MAX,
            ..l
        };
        assert!(matches!(decode(&bytes, &open), Err(DecodeError::UnexpectedEnd { .. })));
        // Above PackStream's own maximum (2^31 - 1).
        let over = [marker, 0xFF, 0xFF, 0xFF, 0xFF];
        assert!(matches!(
            decode(&over, &open),
            Err(DecodeError::SizeLimit { limit: 0x7FFF_FFFF, .. })
        ));
    }
    for m in [0xC4, 0xC5, 0xC6, 0xC7, 0xCF, 0xD3, 0xD7, 0xDB, 0xDC, 0xDF, 0xE0, 0xEF] {
        assert_eq!(
            decode(&[m], &l),
            Err(DecodeError::UnknownMarker { marker: m, offset: 0 })
        );
    }
    assert_eq!(
        decode(&hex("91 C9 00"), &l),
        Err(DecodeError::UnexpectedEnd {
            what: "INT_16",
            offset: 2,
            needed: 1
        })
    );
    assert_eq!(
        decode(&hex("92 82 FF FE"), &l),
        Err(DecodeError::InvalidUtf8 { offset: 1 })
    );
    assert_eq!(
        decode(&hex("A1 01 01"), &l),
        Err(DecodeError::NonStringKey { marker: 1, offset: 1 })
    );
    assert_eq!(
        decode(&hex("B0 80"), &l),
        Err(DecodeError::InvalidTag { tag: 0x80, offset: 1 })
    );
    assert_eq!(
        decode(&hex("01 02"), &l),
        Err(DecodeError::TrailingBytes { offset: 1, count: 1 })
    );
    assert!(matches!(decode(&[], &l), Err(DecodeError::UnexpectedEnd { .. })));
    // Errors display what and where.
    let e = decode(&hex("D0 05 41"), &l).unwrap_err().to_string();
    assert!(e.contains("byte 2") && e.contains("string"), "{e}");
}

#[test]
fn every_one_and_two_byte_input_decodes_or_errors() {
    for a in 0..=255u8 {
        let _ = decode(&[a], &limits());
        for b in 0..=255u8 {
            let _ = decode(&[a, b], &limits());
        }
    }
}

#[test]
fn encoder_depth_limit() {
    let mut v = Value::Null;
    for _ in 0..600 {
        v = Value::List(vec![v]);
    }
    assert_eq!(to_bytes(&v), Err(EncodeError::DepthLimit { limit: 512 }));
    // 512 levels of structures, maps and lists still encode and decode (no stack trouble).
    let mut v = Value::Null;
    for i in 0..512 {
        v = match i % 3 {
            0 => Value::Structure {
                tag: 1,
                fields: vec![v],
            },
            1 => Value::map([("k", v)]),
            _ => Value::List(vec![v]),
        };
    }
    let bytes = to_bytes(&v).unwrap();
    assert_eq!(decode(&bytes, &limits()).unwrap(), v);
    let wrapped = Value::List(vec![v]);
    assert_eq!(to_bytes(&wrapped), Err(EncodeError::DepthLimit { limit: 512 }));
}

#[test]
fn typed_structures_round_trip() {
    let node = Node {
        id: 1,
        labels: vec!["A".into()],
        properties: vec![("k".into(), 1.into())],
        element_id: "4:x:1".into(),
    };
    let unbound = UnboundRelationship {
        id: 5,
        rel_type: "R".into(),
        properties: vec![],
        element_id: "5:x:5".into(),
    };
    let values = vec![
        node.clone().into_value(),
        Path {
            nodes: vec![node.clone(), node.clone()],
            rels: vec![unbound],
            indices: vec![1, 1],
        }
        .into_value(),
        Date { days: -1 }.into_value(),
        Time {
            nanoseconds: 1,
            tz_offset_seconds: -3600,
        }
        .into_value(),
        LocalTime { nanoseconds: 99 }.into_value(),
        LocalDateTime {
            seconds: 1,
            nanoseconds: 2,
        }
        .into_value(),
        Duration {
            months: 1,
            days: 2,
            seconds: 3,
            nanoseconds: 4,
        }
        .into_value(),
        Point2D {
            srid: 7203,
            x: 1.0,
            y: 2.0,
        }
        .into_value(),
        Point3D {
            srid: 9157,
            x: 1.0,
            y: 2.0,
            z: 3.0,
        }
        .into_value(),
    ];
    for v in &values {
        let back = decode(&to_bytes(v).unwrap(), &limits()).unwrap();
        assert_eq!(&back, v);
    }
    assert_eq!(Node::from_value(&values[0]), Some(node));
    assert!(Path::from_value(&values[1]).is_some());
    assert_eq!(Date::from_value(&values[2]), Some(Date { days: -1 }));
    assert!(Time::from_value(&values[3]).is_some());
    assert!(LocalTime::from_value(&values[4]).is_some());
    assert!(LocalDateTime::from_value(&values[5]).is_some());
    assert!(Duration::from_value(&values[6]).is_some());
    assert!(Point2D::from_value(&values[7]).is_some());
    assert!(Point3D::from_value(&values[8]).is_some());
    assert_eq!(Date::from_value(&values[3]), None);
    assert_eq!(Node::from_value(&Value::Integer(1)), None);
}

#[test]
fn graph_entities_follow_the_version() {
    let node3 = Value::Structure {
        tag: tag::NODE,
        fields: vec![7.into(), Value::list(["L"]), Value::Map(vec![])],
    };
    let v5 = Encoder::new(StructFormat::V5);
    let v44 = Encoder::new(StructFormat::V4_4);
    // 5.x: a node without element id gets its numeric id as element id.
    let back = decode(&v5.to_vec(&node3).unwrap(), &limits()).unwrap();
    assert_eq!(Node::from_value(&back).unwrap().element_id, "7");
    assert_eq!(back.as_structure().unwrap().1.len(), 4);
    // 4.4: element ids are dropped, also inside paths.
    let node4 = Node::from_value(&node3).unwrap();
    let rel = Relationship {
        id: 1,
        start_node_id: 7,
        end_node_id: 7,
        rel_type: "R".into(),
        properties: vec![],
        element_id: "e1".into(),
        start_node_element_id: "e7".into(),
        end_node_element_id: "e7".into(),
    };
    let path = Path {
        nodes: vec![node4.clone()],
        rels: vec![UnboundRelationship {
            id: 1,
            rel_type: "R".into(),
            properties: vec![],
            element_id: "e1".into(),
        }],
        indices: vec![1, 0],
    };
    let record = Value::List(vec![node4.into_value(), rel.clone().into_value(), path.into_value()]);
    let legacy = decode(&v44.to_vec(&record).unwrap(), &limits()).unwrap();
    let items = legacy.as_list().unwrap();
    assert_eq!(items[0].as_structure().unwrap().1.len(), 3);
    assert_eq!(items[1].as_structure().unwrap().1.len(), 5);
    let (_, pf) = items[2].as_structure().unwrap();
    assert_eq!(pf[0].as_list().unwrap()[0].as_structure().unwrap().1.len(), 3);
    assert_eq!(pf[1].as_list().unwrap()[0].as_structure().unwrap().1.len(), 3);
    // 4.4 forms are still recognised, with numeric ids standing in for element ids.
    let r = Relationship::from_value(&items[1]).unwrap();
    assert_eq!((r.element_id.as_str(), r.start_node_element_id.as_str()), ("1", "7"));
    // And a 4.4-form relationship is completed for 5.x.
    let back = decode(&v5.to_vec(&items[1]).unwrap(), &limits()).unwrap();
    assert_eq!(back.as_structure().unwrap().1.len(), 8);
}

#[test]
fn datetimes_follow_the_version() {
    // spec (structure semantics): 1970-01-01T02:15:00.000000042+01:00 is DateTime
    // {seconds: 4500, nanoseconds: 42, tz_offset_seconds: 3600}, and Legacy DateTime
    // {seconds: 8100, ...}; the same instant in Europe/Paris likewise.
    let dt = DateTime {
        seconds: 4500,
        nanoseconds: 42,
        tz_offset_seconds: 3600,
    };
    let dz = DateTimeZoneId {
        seconds: 4500,
        nanoseconds: 42,
        tz_id: "Europe/Paris".into(),
        offset_seconds: Some(3600),
    };
    let enc = |fmt: StructFormat, v: &Value| decode(&Encoder::new(fmt).to_vec(v).unwrap(), &limits()).unwrap();
    let st = |t: u8, f: Vec<Value>| Value::Structure { tag: t, fields: f };
    assert_eq!(
        enc(StructFormat::V5, &dt.into_value()),
        st(0x49, vec![4500.into(), 42.into(), 3600.into()])
    );
    assert_eq!(
        enc(StructFormat::V4_4_UTC, &dt.into_value()),
        st(0x49, vec![4500.into(), 42.into(), 3600.into()])
    );
    let legacy_dt = enc(StructFormat::V4_4, &dt.into_value());
    assert_eq!(legacy_dt, st(0x46, vec![8100.into(), 42.into(), 3600.into()]));
    assert_eq!(DateTime::from_value(&legacy_dt), Some(dt));
    let paris = Value::from("Europe/Paris");
    assert_eq!(
        enc(StructFormat::V5, &dz.clone().into_value()),
        st(0x69, vec![4500.into(), 42.into(), paris.clone()])
    );
    let legacy_dz = enc(StructFormat::V4_4, &dz.clone().into_value());
    assert_eq!(legacy_dz, st(0x66, vec![8100.into(), 42.into(), paris]));
    let l = LegacyDateTimeZoneId::from_value(&legacy_dz).unwrap();
    assert_eq!(l.to_utc(3600), dz);
    // Without the offset, the legacy form cannot be produced.
    let no_offset = DateTimeZoneId {
        offset_seconds: None,
        ..dz
    };
    assert_eq!(
        Encoder::new(StructFormat::V4_4).to_vec(&no_offset.into_value()),
        Err(EncodeError::ZoneOffsetUnknown {
            tz_id: "Europe/Paris".into()
        })
    );
    // Incoming 4.4 legacy DateTimes are normalised to the UTC form.
    let wire = to_bytes(&st(0x46, vec![8100.into(), 42.into(), 3600.into()])).unwrap();
    let mut d = Decoder::new(&wire, limits()).with_format(StructFormat::V4_4);
    assert_eq!(d.read_value().unwrap(), dt.into_value());
}

#[test]
fn nan_survives_bit_exact() {
    let nan = f64::from_bits(0x7FF8_0000_0000_0001);
    let bytes = to_bytes(&Value::Float(nan)).unwrap();
    let Value::Float(back) = decode(&bytes, &limits()).unwrap() else {
        panic!()
    };
    assert_eq!(back.to_bits(), nan.to_bits());
}

fn arb_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Boolean),
        any::<i64>().prop_map(Value::Integer),
        prop_oneof![Just(-17i64), Just(-16), Just(127), Just(128), Just(32768)].prop_map(Value::Integer),
        any::<f64>()
            .prop_filter("NaN is not equal to itself", |f| !f.is_nan())
            .prop_map(Value::Float),
        proptest::collection::vec(any::<u8>(), 0..300).prop_map(Value::Bytes),
        ".{0,40}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 20, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..20).prop_map(Value::List),
            proptest::collection::vec(("[a-z]{0,6}", inner.clone()), 0..20).prop_map(|entries| {
                let mut m: Vec<(String, Value)> = Vec::new();
                for (k, v) in entries {
                    if !m.iter().any(|(x, _)| *x == k) {
                        m.push((k, v));
                    }
                }
                Value::Map(m)
            }),
            (0u8..=0x7F, proptest::collection::vec(inner, 0..=15))
                .prop_map(|(tag, fields)| Value::Structure { tag, fields }),
        ]
    })
}

proptest! {
    #[test]
    fn encode_then_decode_is_identity(v in arb_value()) {
        let bytes = to_bytes(&v).unwrap();
        prop_assert_eq!(decode(&bytes, &limits()).unwrap(), v);
    }

    #[test]
    fn decoding_random_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let _ = decode(&bytes, &limits());
        let tight = DecodeLimits { max_depth: 3, max_size: 8 };
        let _ = decode(&bytes, &tight);
    }

    #[test]
    fn decoding_mutated_values_never_panics(
        v in arb_value(),
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
    ) {
        let mut bytes = to_bytes(&v).unwrap();
        if !bytes.is_empty() {
            for (i, b) in flips {
                let at = i.index(bytes.len());
                bytes[at] = b;
            }
        }
        let _ = decode(&bytes, &limits());
    }
}
