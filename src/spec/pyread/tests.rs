use std::borrow::Cow;

use super::operands::OperandDef;
use super::*;

fn tokens(src: &str) -> Vec<Tok<'_>> {
    let mut lexer = Lexer::new("t.py", src);
    let mut out = Vec::new();
    loop {
        let token = lexer
            .next_token()
            .unwrap_or_else(|e| panic!("lex error: {e}"));
        if token.tok == Tok::Eof {
            return out;
        }
        out.push(token.tok);
    }
}

fn string_value(src: &str) -> String {
    match tokens(src).as_slice() {
        [Tok::Str(s), Tok::Newline] => s.to_string(),
        other => panic!("expected one string, got {other:?}"),
    }
}

fn shape_line(err: SpecError) -> (String, usize) {
    match err {
        SpecError::Shape { file, line, .. } => (file, line),
        other => panic!("expected a Shape error, got {other:?}"),
    }
}

#[test]
fn escapes_in_single_and_double_quotes() {
    assert_eq!(
        string_value(r#"'a\nb\tc\\d\'e"f\x41\u00e9\101'"#),
        "a\nb\tc\\d'e\"fAéA"
    );
    assert_eq!(string_value(r#""6'0U \"q\" \U0001F600""#), "6'0U \"q\" 😀");
    // Unknown escapes keep their backslash, as in Python.
    assert_eq!(string_value(r"'a\db'"), "a\\db");
}

#[test]
fn strings_without_escapes_are_borrowed() {
    let toks = tokens("'D0.u32 = S0.u32'");
    assert!(matches!(
        &toks[0],
        Tok::Str(Cow::Borrowed("D0.u32 = S0.u32"))
    ));
}

#[test]
fn raw_triple_and_adjacent_strings() {
    assert_eq!(string_value(r"r'a\nb\''"), "a\\nb\\'");
    let module = parse_module("t.py", "X = '''one\n'two'\n''' 'three'\nY = 2\n")
        .unwrap_or_else(|e| panic!("{e}"));
    match &module[..] {
        [Stmt::Assign { value: x, .. }, Stmt::Assign { line, value: y, .. }] => {
            assert_eq!(x.kind, ExprKind::Str(Cow::Borrowed("one\n'two'\nthree")));
            assert_eq!(*line, 4);
            assert_eq!(y.kind, ExprKind::Int(2));
        }
        other => panic!("unexpected statements {other:?}"),
    }
}

#[test]
fn integers_names_and_punctuation() {
    assert_eq!(
        tokens("a = Fmt.FMT_ANY(0b101, 0x1F, 0o17, 1_000, -3)  # comment\n"),
        vec![
            Tok::Name("a"),
            Tok::Punct(b'='),
            Tok::Name("Fmt.FMT_ANY"),
            Tok::Punct(b'('),
            Tok::Int(5),
            Tok::Punct(b','),
            Tok::Int(31),
            Tok::Punct(b','),
            Tok::Int(15),
            Tok::Punct(b','),
            Tok::Int(1000),
            Tok::Punct(b','),
            Tok::Punct(b'-'),
            Tok::Int(3),
            Tok::Punct(b')'),
            Tok::Newline,
        ]
    );
}

#[test]
fn newlines_inside_brackets_are_joined() {
    let module = parse_module("t.py", "D = {\n  A.B: (1,\n   2),\n}\nE = 3\n")
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(module.len(), 2);
    let Stmt::Assign { value, .. } = &module[0] else {
        panic!("expected an assignment");
    };
    let ExprKind::Dict(entries) = &value.kind else {
        panic!("expected a dict");
    };
    assert_eq!(entries[0].0.kind, ExprKind::Path("A.B"));
    assert_eq!(entries[0].0.line, 2);
    assert_eq!(
        entries[0].1.kind,
        ExprKind::Tuple(vec![
            Expr {
                line: 2,
                kind: ExprKind::Int(1)
            },
            Expr {
                line: 3,
                kind: ExprKind::Int(2)
            },
        ])
    );
}

#[test]
fn enums_with_aliases() {
    let src = "from m import ReprEnum\n\nclass VOP2Op(ReprEnum):\n  V_ADD_F32_E32 = 3\n  V_SUB_F32_E32 = 0x4\n  V_ADD_F32 = V_ADD_F32_E32\n  V_PLUS = V_ADD_F32\n  V_SAME = 4\n\nclass MSG(ReprEnum):\n  MSG_X = -1\n";
    let classes = read_enums("e.py", src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(classes.len(), 2);
    let members: Vec<(&str, i64, Option<usize>)> = classes[0]
        .members
        .iter()
        .map(|m| (m.name, m.value, m.alias_of))
        .collect();
    assert_eq!(
        members,
        vec![
            ("V_ADD_F32_E32", 3, None),
            ("V_SUB_F32_E32", 4, None),
            ("V_ADD_F32", 3, Some(0)),
            ("V_PLUS", 3, Some(0)),
            // A repeated value is an alias too, as in Python's Enum.
            ("V_SAME", 4, Some(1)),
        ]
    );
    assert_eq!(classes[1].members[0].value, -1);
    assert_eq!(classes[1].members[0].line, 11);
}

#[test]
fn enum_alias_to_unknown_member() {
    let err = read_enums("e.py", "class XOp(ReprEnum):\n  A = B\n").unwrap_err();
    assert!(
        matches!(err, SpecError::UnknownName { ref name, line: 2, .. } if name == "XOp.B"),
        "{err:?}"
    );
}

#[test]
fn enum_member_of_wrong_shape() {
    let err = read_enums("e.py", "class XOp(ReprEnum):\n  A = 1\n  B = f(2)\n").unwrap_err();
    assert_eq!(shape_line(err), ("e.py".to_string(), 3));
    let err = read_enums("e.py", "class XOp(ReprEnum):\n  A = 1\n  B = 2 3\n").unwrap_err();
    assert_eq!(shape_line(err), ("e.py".to_string(), 3));
    let err = read_enums("e.py", "class XOp(ReprEnum):\n  A = 1\nB = 2\n").unwrap_err();
    assert_eq!(shape_line(err), ("e.py".to_string(), 3));
}

#[test]
fn malformed_literals_report_their_line() {
    for (src, line) in [
        ("P = {\n  A.B: 'open\n}\n", 2),
        ("P = {\n  A.B: 'x',\n  A.C: b'y',\n}\n", 3),
        ("P = {\n  A.B: 1.5,\n}\n", 2),
        ("P = {\n  A.B: '\\x4',\n}\n", 2),
        ("P = {\n  A.B: 'x'\n  A.C: 'y',\n}\n", 3),
        ("X = 1\n  Y = 2\n", 2),
        ("X = 99999999999999999999\n", 1),
        ("X = {\n", 1),
        ("X = (1,\n 2]\n", 2),
        ("X = a . b\n", 1),
        ("X = a[0]\n", 1),
    ] {
        let err = parse_module("p.py", src).map_err(|e| *e).unwrap_err();
        assert_eq!(shape_line(err), ("p.py".to_string(), line), "{src:?}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let src = format!("X = {}1{}\n", "(".repeat(500), ")".repeat(500));
    let err = parse_module("p.py", &src).map_err(|e| *e).unwrap_err();
    assert_eq!(shape_line(err), ("p.py".to_string(), 1));
}

#[test]
fn pcode_dict() {
    let src = "from m import SOP1Op\n\nPCODE = {\n  SOP1Op.S_MOV_B32: 'D0.b32 = S0.b32',\n  SOP1Op.S_WQM_B64: \"for i in 6'0U : 6'63U do\\nendfor\",\n}\n";
    let entries = read_pcode("s.py", src).unwrap_or_else(|e| panic!("{e}"));
    let got: Vec<(usize, &str, &str, &str)> = entries
        .iter()
        .map(|e| (e.line, e.class, e.member, e.value.as_ref()))
        .collect();
    assert_eq!(
        got,
        vec![
            (4, "SOP1Op", "S_MOV_B32", "D0.b32 = S0.b32"),
            (5, "SOP1Op", "S_WQM_B64", "for i in 6'0U : 6'63U do\nendfor"),
        ]
    );
}

#[test]
fn pcode_value_must_be_a_string() {
    let err = read_pcode("s.py", "PCODE = {\n  A.B: 'x',\n  A.C: 3,\n}\n").unwrap_err();
    assert_eq!(shape_line(err), ("s.py".to_string(), 3));
    let err = read_pcode("s.py", "X = 1\n").unwrap_err();
    assert_eq!(shape_line(err), ("s.py".to_string(), 1));
    let err = read_pcode("s.py", "import m\n").unwrap_err();
    assert_eq!(shape_line(err), ("s.py".to_string(), 2));
}

#[test]
fn operands_dict() {
    let src = "OPERANDS = {\n  VOP2Op.V_ADD_F32: {\"src0\": (Fmt.FMT_NUM_F32, 32, OpType.OPR_SRC), \"vdst\": (Fmt.FMT_NUM_F32, 32, OpType.OPR_VGPR)},\n}\n";
    let entries = read_operands("o.py", src).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(entries.len(), 1);
    assert_eq!(
        (entries[0].class, entries[0].member),
        ("VOP2Op", "V_ADD_F32")
    );
    assert_eq!(
        entries[0].value,
        vec![
            OperandDef {
                field: Cow::Borrowed("src0"),
                format: "FMT_NUM_F32",
                bits: 32,
                kind: "OPR_SRC"
            },
            OperandDef {
                field: Cow::Borrowed("vdst"),
                format: "FMT_NUM_F32",
                bits: 32,
                kind: "OPR_VGPR"
            },
        ]
    );
    let bad = "OPERANDS = {\n  A.B: {\"x\": (Fmt.F, 32)},\n}\n";
    assert_eq!(
        shape_line(read_operands("o.py", bad).unwrap_err()),
        ("o.py".to_string(), 2)
    );
    let bad = "OPERANDS = {\n  A.B: {\"x\": (Fmt.F, 32, Other.T)},\n}\n";
    assert_eq!(
        shape_line(read_operands("o.py", bad).unwrap_err()),
        ("o.py".to_string(), 2)
    );
}

const INS: &str = "# generated\nfrom m import BitField\nimport functools\n\nclass DS(Inst):\n  encoding = FixedBitField(31, 26, 0b110110)\n  op = EnumBitField(25, 18, DSOp, {DSOp.DS_ADD_U32, DSOp.DS_SUB_U32})\n  vdst = VGPRField(63, 56)\n  saddr = SGPRField(54, 48, default=NULL)\n\nclass DS_LIT(DS):\n  literal = BitField(95, 64)\n\nclass VOPD(Inst):\n  opx = EnumBitField(25, 22, VOPDOp)\n\n# instruction helpers\nds_add_u32 = functools.partial(DS, DSOp.DS_ADD_U32)\n";

#[test]
fn ins_classes_and_fields() {
    let classes = read_ins("i.py", INS).unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<(&str, Option<&str>)> = classes.iter().map(|c| (c.name, c.base)).collect();
    assert_eq!(
        names,
        vec![("DS", None), ("DS_LIT", Some("DS")), ("VOPD", None)]
    );
    let ds = &classes[0];
    assert_eq!(ds.fields.len(), 4);
    assert_eq!(
        (
            ds.fields[0].ctor,
            ds.fields[0].hi,
            ds.fields[0].lo,
            ds.fields[0].fixed
        ),
        ("FixedBitField", 31, 26, Some(0b110110))
    );
    assert_eq!(ds.fields[1].op_enum, Some("DSOp"));
    assert_eq!(
        ds.fields[1].members,
        vec![(7, "DS_ADD_U32"), (7, "DS_SUB_U32")]
    );
    assert_eq!(ds.fields[3].default.as_deref(), Some("NULL"));
    assert_eq!(classes[2].fields[0].op_enum, Some("VOPDOp"));
    assert!(classes[2].fields[0].members.is_empty());
}

#[test]
fn ins_unexpected_statements() {
    for (src, line) in [
        ("class A(Inst):\n  x = BitField(1)\n", 2),
        ("class A(Inst):\n  x = BitField(1, 2)\n", 2),
        ("class A(Inst):\n  x = Thing(1, 0)\n", 2),
        ("class A(Inst):\n  x = BitField(1, 0, size=3)\n", 2),
        (
            "class A(Inst):\n  x = EnumBitField(3, 0, XOp, {YOp.A})\n",
            2,
        ),
        ("class A(Inst):\n  x = 3\n", 2),
        ("class A(Inst):\n  x = BitField(1, 0)\nSIZE = 4\n", 3),
        (
            "class A(Inst):\n  x = BitField(1, 0)\nclass B(A, A):\n  y = BitField(1, 0)\n",
            3,
        ),
        ("class A(Inst):\n\nx = 1\n", 1),
    ] {
        let err = read_ins("i.py", src).unwrap_err();
        assert_eq!(shape_line(err), ("i.py".to_string(), line), "{src:?}");
    }
    let err = read_ins("i.py", "class A(B):\n  x = BitField(1, 0)\n").unwrap_err();
    assert!(
        matches!(err, SpecError::UnknownName { line: 1, .. }),
        "{err:?}"
    );
}
