//! The chunk codec: every value and status comes back, decimals are narrow, old chunks read.

use super::*;
use crate::observations::model::Status;
use proptest::prelude::*;

fn value() -> impl Strategy<Value = PointValue> {
    prop_oneof![
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(PointValue::Num),
        (-10_000_000i64..10_000_000, 0u32..6)
            .prop_map(|(n, e)| PointValue::Num(n as f64 / 10f64.powi(e as i32))),
        (-100i64..100).prop_map(|n| PointValue::Num(n as f64 / 4.0)),
        "\\PC{0,12}".prop_map(PointValue::Text),
        Just(PointValue::Null),
    ]
}

#[test]
fn decoded_columns_say_where_a_value_may_be_no_finite_number() {
    let decode = |points: &[Point]| {
        let mut c = Columns::default();
        decode_columns(&encode(points), &mut c).unwrap();
        c
    };
    // Decimal values are finite as made: only a null or text value (an extra) is not.
    let null = Point {
        t: 2,
        v: PointValue::Null,
        status: None,
    };
    let mut c = decode(&[Point::num(1, 1.5), null, Point::num(3, 2.25)]);
    assert!(!c.maybe_not_finite && !c.all_finite());
    c.keep(2, 3);
    assert!(c.all_finite());
    // Raw floats are looked at as they are decoded: an infinity or a NaN number is seen.
    for odd in [f64::INFINITY, f64::NEG_INFINITY, f64::NAN] {
        let c = decode(&[Point::num(1, 1.0 / 3.0), Point::num(2, odd)]);
        assert!(c.maybe_not_finite && !c.all_finite(), "{odd}");
        assert!(!Columns::from_points(&[Point::num(2, odd)]).all_finite());
    }
    let c = decode(&[Point::num(1, 1.0 / 3.0), Point::num(2, 2.0 / 3.0)]);
    assert!(!c.maybe_not_finite && c.all_finite());
    // Beside decimals, a number kept as it is (one in eight may be) is seen too.
    for odd in [f64::INFINITY, f64::NAN] {
        let mut points: Vec<Point> = (0..16).map(|i| Point::num(i, i as f64 / 4.0)).collect();
        points[9] = Point::num(9, odd);
        let bytes = encode(&points);
        assert_eq!(bytes[4 + 1 + 1 + 8 + 1], 0, "a decimal column");
        let c = decode(&points);
        assert!(c.maybe_not_finite && !c.all_finite(), "{odd}");
    }
}

fn status() -> impl Strategy<Value = Option<Box<Status>>> {
    prop_oneof![
        4 => Just(None),
        1 => Just(Some(Box::new(Status {
            quality: Some("FAILED:spike".into()),
            source: None,
            reliability: Some("QUOTED".into())
        }))),
    ]
}

fn build(start: i64, raw: Vec<(i64, PointValue, Option<Box<Status>>)>) -> Vec<Point> {
    let mut t = start;
    raw.into_iter()
        .map(|(d, v, status)| {
            t += d;
            Point { t, v, status }
        })
        .collect()
}

fn round_trip(points: &[Point]) -> std::result::Result<(), TestCaseError> {
    let bytes = encode(points);
    let back = decode(&bytes).unwrap();
    prop_assert_eq!(back.len(), points.len());
    for (a, b) in back.iter().zip(points) {
        // Bit for bit: -0.0 and 0.0 differ, every NaN payload is kept.
        prop_assert_eq!(a.t, b.t);
        prop_assert_eq!(&a.status, &b.status);
        match (&a.v, &b.v) {
            (PointValue::Num(x), PointValue::Num(y)) => {
                prop_assert_eq!(x.to_bits(), y.to_bits())
            }
            (x, y) => prop_assert_eq!(x, y),
        }
    }
    let mut columns = Columns::default();
    decode_columns(&bytes, &mut columns).unwrap();
    let expect = Columns::from_points(points);
    prop_assert_eq!(&columns.times, &expect.times);
    prop_assert_eq!(
        columns
            .values
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>(),
        expect
            .values
            .iter()
            .map(|v| v.to_bits())
            .collect::<Vec<_>>()
    );
    prop_assert_eq!(&columns.extras.len(), &expect.extras.len());
    // What a reader is told of the values' finiteness holds, looked at in full or not.
    let finite = points
        .iter()
        .all(|p| matches!(p.v, PointValue::Num(n) if n.is_finite()));
    prop_assert_eq!(columns.all_finite(), finite);
    prop_assert_eq!(
        crate::observations::columns::all_finite(&columns.values),
        finite
    );
    Ok(())
}

proptest! {
    #[test]
    fn chunks_round_trip(raw in prop::collection::vec((1i64..10_000_000, value(), status()), 0..200),
                         start in -1_000_000_000_000i64..2_000_000_000_000) {
        round_trip(&build(start, raw))?;
    }

    #[test]
    fn a_chunk_decoded_from_a_position_is_its_tail(raw in prop::collection::vec((1i64..10_000_000, value(), status()), 0..200),
                                                   regular in any::<bool>(), skip in 0usize..220) {
        let raw = if regular { raw.into_iter().map(|(_, v, s)| (60_000, v, s)).collect() } else { raw };
        let points = build(-7, raw);
        let bytes = encode(&points);
        let mut tail = Columns::default();
        // After columns already held: positions are the tail's own.
        tail.push(&Point::num(-100, 1.0));
        decode_columns_from(&bytes, &mut tail, skip).unwrap();
        let mut expect = Columns::default();
        expect.push(&Point::num(-100, 1.0));
        for p in points.iter().skip(skip) {
            expect.push(p);
        }
        prop_assert_eq!(&tail.times, &expect.times);
        prop_assert_eq!(
            tail.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            expect.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        prop_assert_eq!(&tail.extras, &expect.extras);
        prop_assert_eq!(tail.all_finite(), expect.all_finite());
    }

    #[test]
    fn a_run_of_columns_encodes_as_its_points(raw in prop::collection::vec((1i64..10_000_000, value(), status()), 0..200),
                                              cut in (0usize..200, 0usize..200)) {
        let points = build(0, raw);
        let (a, b) = (cut.0.min(cut.1).min(points.len()), cut.0.max(cut.1).min(points.len()));
        let columns = Columns::from_points(&points);
        let run = columns.view(a, b);
        prop_assert_eq!(run.base, a);
        prop_assert_eq!(encode_columns(&run), encode(&points[a..b]));
    }

    #[test]
    fn regular_chunks_round_trip(values in prop::collection::vec((value(), status()), 0..300),
                                 step in 1i64..100_000_000, start in -1_000_000_000_000i64..2_000_000_000_000) {
        round_trip(&build(start, values.into_iter().map(|(v, s)| (step, v, s)).collect()))?;
    }
}

#[test]
fn every_double_comes_back_bit_for_bit() {
    let odd = [
        -0.0,
        0.0,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        5e-324,
        f64::MAX,
        9_007_199_254_740_993.0,
        0.1 + 0.2,
        1e18,
        123_456.789,
    ];
    for v in odd {
        // Alone, beside decimals, and in a chunk of raw values.
        for points in [
            vec![Point::num(0, v)],
            vec![Point::num(0, 1.25), Point::num(60, v), Point::num(120, 2.5)],
            vec![Point::num(0, std::f64::consts::PI), Point::num(60, v)],
        ] {
            let back = decode(&encode(&points)).unwrap();
            let bits = |p: &[Point]| {
                p.iter()
                    .map(|p| p.v.as_f64().unwrap().to_bits())
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&back), bits(&points), "{v:e}");
        }
    }
}

#[test]
fn a_regular_series_of_prices_takes_a_byte_a_point() {
    let mut v = 5_000i64;
    let points: Vec<Point> = (0..4096)
        .map(|i| {
            v += (i * 7919 % 101) - 50;
            Point::num(1_577_836_800_000 + i * 60_000, v as f64 / 100.0)
        })
        .collect();
    let bytes = encode(&points);
    assert!(bytes.len() < 4096 + 40, "{} bytes", bytes.len());
    assert_eq!(decode(&bytes).unwrap(), points);
    // A few numbers that are no decimals (-0.0 where a walk crosses zero, a computed sum)
    // are kept as they are beside the column, with their status if any.
    let mut odd = points.clone();
    odd[10] = Point::num(odd[10].t, -0.0);
    odd[20] = Point::num(odd[20].t, 0.1 + 0.2);
    odd[30].status = Some(Box::new(Status::default()));
    odd[30].v = PointValue::Num(f64::NAN);
    let bytes = encode(&odd);
    assert!(bytes.len() < 4096 + 80, "{} bytes", bytes.len());
    let back = decode(&bytes).unwrap();
    assert_eq!(back[10].v.as_f64().unwrap().to_bits(), (-0.0f64).to_bits());
    assert_eq!(back[20].v, PointValue::Num(0.1 + 0.2));
    assert!(back[30].v.as_f64().unwrap().is_nan() && back[30].status.is_some());
    assert_eq!(back[..10], points[..10]);
    assert_eq!(back[31..], points[31..]);
    let mut columns = Columns::default();
    decode_columns(&bytes, &mut columns).unwrap();
    assert_eq!(
        columns.extras.iter().map(|e| e.index).collect::<Vec<_>>(),
        vec![30],
        "a number kept as it is is a plain number"
    );
    // A chunk that opens with such numbers takes its places from the first decimals.
    let mut opening = points.clone();
    for p in &mut opening[..3] {
        p.v = PointValue::Num(-0.0);
    }
    opening[3].v = PointValue::Num(std::f64::consts::PI);
    let bytes = encode(&opening);
    assert!(bytes.len() < 4096 + 80, "{} bytes", bytes.len());
    assert_eq!(decode(&bytes).unwrap()[4..], points[4..]);
    // More than an eighth of them: every value as it is.
    let many: Vec<Point> = points
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i % 4 == 0 {
                Point::num(p.t, -0.0)
            } else {
                p.clone()
            }
        })
        .collect();
    let bytes = encode(&many);
    assert!(bytes.len() > 4096 * 8, "{} bytes", bytes.len());
    assert_eq!(decode(&bytes).unwrap().len(), 4096);
    // Wider steps take wider deltas; an irregular series keeps a delta per time.
    let wide: Vec<Point> = (0..100)
        .map(|i| Point::num(i * 1000 + i % 3, (i * i) as f64 * 1000.5))
        .collect();
    let bytes = encode(&wide);
    assert_eq!(decode(&bytes).unwrap(), wide);
    assert!(bytes.len() < 100 * 6 + 40, "{} bytes", bytes.len());
    // Values with more than 18 places are kept whole.
    let raw = [Point::num(0, std::f64::consts::E), Point::num(1, 1.0 / 3.0)];
    assert_eq!(encode(&raw).len(), 4 + 1 + 1 + 8 + 1 + 1 + 16 + 1);
}

#[test]
fn chunks_of_the_first_form_are_still_read() {
    // count 3, first 1000; +0 number 1.5; +60 null with status "FAILED|NEW|"; +60 text "x".
    let mut old = vec![3, 0, 0, 0];
    old.extend_from_slice(&1000i64.to_le_bytes());
    old.extend_from_slice(&[0, 1]);
    old.extend_from_slice(&1.5f64.to_le_bytes());
    old.extend_from_slice(&[60, 0x80, 11]);
    old.extend_from_slice(b"FAILED|NEW|");
    old.extend_from_slice(&[60, 2, 1, b'x']);
    let points = decode(&old).unwrap();
    assert_eq!(
        points,
        vec![
            Point::num(1000, 1.5),
            Point {
                t: 1060,
                v: PointValue::Null,
                status: Some(Box::new(Status {
                    quality: Some("FAILED".into()),
                    source: Some("NEW".into()),
                    reliability: None
                }))
            },
            Point {
                t: 1120,
                v: PointValue::Text("x".into()),
                status: None
            },
        ]
    );
    let mut columns = Columns::default();
    decode_columns(&old, &mut columns).unwrap();
    assert_eq!(columns.into_points(), points);
    // From a position on, as a `last(n)` reads its oldest chunk.
    let mut tail = Columns::default();
    decode_columns_from(&old, &mut tail, 1).unwrap();
    assert_eq!(tail.into_points(), points[1..].to_vec());
    // Rewritten, the same points take the columnar form.
    assert_eq!(&encode(&points)[..4], &MAGIC.to_le_bytes());
}

#[test]
fn corrupt_chunks_are_errors_not_panics() {
    let mut with_extras = vec![
        Point::num(1, 1.0),
        Point::num(2, 2.5),
        Point::num(5, f64::MAX),
    ];
    with_extras[1].v = PointValue::Text("t".into());
    with_extras[2].status = Some(Box::new(Status::default()));
    for points in [
        vec![Point::num(1, 1.0), Point::num(2, 2.0)],
        vec![Point::num(1, 1.0), Point::num(2, 2.0), Point::num(3, 3.25)],
        with_extras,
    ] {
        let good = encode(&points);
        for cut in 0..good.len() {
            assert!(decode(&good[..cut]).is_err(), "cut at {cut}");
            let mut c = Columns::default();
            assert!(
                decode_columns(&good[..cut], &mut c).is_err(),
                "cut at {cut}"
            );
            // Read from a position on, the bytes before it are still checked.
            for skip in 1..=points.len() {
                let mut c = Columns::default();
                assert!(
                    decode_columns_from(&good[..cut], &mut c, skip).is_err(),
                    "cut at {cut}, from {skip}"
                );
            }
        }
        let mut longer = good.clone();
        longer.push(0);
        assert!(decode(&longer).is_err());
        // Every single byte changed: an error or some points, never a panic.
        for at in 0..good.len() {
            for b in [0u8, 1, 2, 0x7f, 0x80, 0xff] {
                let mut bad = good.clone();
                bad[at] = b;
                let _ = decode(&bad);
                let _ = decode_columns_from(&bad, &mut Columns::default(), 2);
            }
        }
    }
}
