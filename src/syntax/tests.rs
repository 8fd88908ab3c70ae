//! Tests for the lexer, the newline rule, the grammar, error spans and the printer.

use proptest::prelude::*;

use super::ast::{BinaryOp, Expr, IntSuffix, Program, Span, Stmt, TypeLetter, TypeSpec, UnaryOp};
use super::*;

/// Parses `src`, panicking with the error message on failure.
fn parse_ok(src: &str) -> Program {
    match parse(src) {
        Ok(program) => program,
        Err(error) => panic!(
            "{src:?} failed to parse: {} at {:?}",
            error.message, error.span
        ),
    }
}

/// Parses `src` and prints it.
fn printed(src: &str) -> String {
    print_program(&parse_ok(src))
}

/// Parses `src`, expecting an error.
fn parse_err(src: &str) -> SyntaxError {
    match parse(src) {
        Ok(program) => panic!("{src:?} parsed: {}", print_program(&program)),
        Err(error) => error,
    }
}

/// The text a span covers.
fn text(src: &str, span: Span) -> &str {
    &src[span.range()]
}

/// The tokens of `src` without spans.
fn tokens(src: &str) -> Vec<Token<'_>> {
    match lex(src) {
        Ok(triples) => triples.into_iter().map(|(_, token, _)| token).collect(),
        Err(error) => panic!("{src:?} failed to lex: {}", error.message),
    }
}

/// The one expression of `x = <expr>`.
fn value_of(src: &str) -> Expr {
    let mut program = parse_ok(&format!("x = {src}"));
    match program.body.pop() {
        Some(Stmt::Assign { value, .. }) => value,
        other => panic!("not an assignment: {other:?}"),
    }
}

/// The printed form of one expression.
fn expr_printed(src: &str) -> String {
    let line = printed(&format!("x = {src}"));
    line.trim_end()
        .strip_prefix("(= x ")
        .and_then(|rest| rest.strip_suffix(')'))
        .unwrap_or_else(|| panic!("unexpected print {line:?}"))
        .to_string()
}

// --- Concrete trees -----------------------------------------------------------------------

const S_WQM_B64: &str = "tmp = 0ULL;\ndeclare i : 6'U;\nfor i in 6'0U : 6'63U do\n\
tmp[i] = S0.u64[i & 6'60U +: 6'4U] != 0ULL\nendfor;\nD0.u64 = tmp;\nSCC = D0.u64 != 0ULL";

#[test]
fn s_wqm_b64_loop_and_part_select() {
    let program = parse_ok(S_WQM_B64);
    assert_eq!(program.body.len(), 5);
    assert!(matches!(
        &program.body[1],
        Stmt::Declare { name, ty: TypeSpec { width: 6, letter: TypeLetter::U }, len: None, .. }
            if name == "i"
    ));
    let Stmt::For {
        var,
        start,
        end,
        body,
        span,
    } = &program.body[2]
    else {
        panic!("not a for loop: {:?}", program.body[2]);
    };
    assert_eq!(var, "i");
    assert!(matches!(
        start,
        Expr::Int {
            value: 0,
            suffix: IntSuffix::Sized(6, Some(TypeLetter::U)),
            ..
        }
    ));
    assert!(matches!(
        end,
        Expr::Int {
            value: 63,
            suffix: IntSuffix::Sized(6, Some(TypeLetter::U)),
            ..
        }
    ));
    assert!(text(S_WQM_B64, *span).starts_with("for i in"));
    assert!(text(S_WQM_B64, *span).ends_with("endfor"));
    let [Stmt::Assign {
        target,
        op: None,
        value,
        ..
    }] = body.as_slice()
    else {
        panic!("unexpected loop body {body:?}");
    };
    assert!(matches!(target, Expr::Index { base, index, .. }
        if matches!(&**base, Expr::Ident { name, .. } if name == "tmp")
        && matches!(&**index, Expr::Ident { name, .. } if name == "i")));
    let Expr::Binary {
        op: BinaryOp::Ne,
        lhs,
        ..
    } = value
    else {
        panic!("not a `!=`: {value:?}");
    };
    let Expr::PartSelect {
        base,
        start,
        width,
        span,
    } = &**lhs
    else {
        panic!("not a part-select: {lhs:?}");
    };
    assert_eq!(text(S_WQM_B64, *span), "S0.u64[i & 6'60U +: 6'4U]");
    assert!(matches!(&**base, Expr::Field { field, .. } if field == "u64"));
    assert!(matches!(
        &**start,
        Expr::Binary {
            op: BinaryOp::BitAnd,
            ..
        }
    ));
    assert!(matches!(
        &**width,
        Expr::Int {
            value: 4,
            suffix: IntSuffix::Sized(6, Some(TypeLetter::U)),
            ..
        }
    ));
    assert_eq!(
        printed(S_WQM_B64),
        "(= tmp 0ULL)\n(declare i 6'U)\n(for i 6'0U 6'63U\n  \
         (= (index tmp i) (!= (part (. S0 u64) (& i 6'60U) 6'4U) 0ULL))\n)\n\
         (= (. D0 u64) tmp)\n(= SCC (!= (. D0 u64) 0ULL))\n"
    );
}

#[test]
fn reversed_slice_keeps_bounds_as_written() {
    let src = "D0.u32 = S0.u32[0 : 31]";
    let program = parse_ok(src);
    let Stmt::Assign { value, .. } = &program.body[0] else {
        panic!("not an assignment");
    };
    let Expr::Slice { hi, lo, span, .. } = value else {
        panic!("not a slice: {value:?}");
    };
    assert!(matches!(&**hi, Expr::Int { value: 0, .. }));
    assert!(matches!(&**lo, Expr::Int { value: 31, .. }));
    assert_eq!(text(src, *span), "S0.u32[0 : 31]");
}

#[test]
fn ternary_in_for_bound() {
    let program = parse_ok("for i in 0 : WAVE32 ? 31 : 63 do\ntmp[i] = 0x0\nendfor");
    let Stmt::For { start, end, .. } = &program.body[0] else {
        panic!("not a for loop");
    };
    assert!(matches!(start, Expr::Int { value: 0, .. }));
    assert!(matches!(end, Expr::Ternary { cond, .. }
        if matches!(&**cond, Expr::Ident { name, .. } if name == "WAVE32")));
}

#[test]
fn colon_closes_the_nearest_ternary_first() {
    assert_eq!(expr_printed("x[c ? a : b]"), "(index x (? c a b))");
    assert_eq!(expr_printed("x[c ? a : b : 0]"), "(slice x (? c a b) 0)");
    assert_eq!(expr_printed("a ? b : c ? d : e"), "(? a b (? c d e))");
    assert_eq!(expr_printed("a ? b ? c : d : e"), "(? a (? b c d) e)");
}

#[test]
fn lambda_with_expression_body() {
    let src = "LT_NEG_ZERO = lambda(a, b) (\n((a < b) || (sign(a) && !sign(b))));\n\
               D0.u32 = LT_NEG_ZERO(S0.f32, S1.f32) ? 1U : 0U";
    let program = parse_ok(src);
    assert_eq!(program.body.len(), 2);
    let Stmt::Lambda {
        name,
        params,
        body,
        span,
    } = &program.body[0]
    else {
        panic!("not a lambda: {:?}", program.body[0]);
    };
    assert_eq!(name, "LT_NEG_ZERO");
    assert_eq!(params, &["a", "b"]);
    assert!(matches!(
        body,
        Expr::Binary {
            op: BinaryOp::Or,
            ..
        }
    ));
    assert!(text(src, *span).starts_with("LT_NEG_ZERO = lambda"));
    assert!(text(src, *span).ends_with("!sign(b))))"));
}

#[test]
fn lambda_with_statement_body() {
    let src = "SAT8 = lambda(n) (\nif n <= 16'0 then\nreturn 8'0U\nelsif n >= 16'255 then\n\
               return 8'255U\nelse\nreturn n[7 : 0].u8\nendif);\nD0.u8 = SAT8(S0.i16)";
    assert_eq!(
        printed(src),
        "(lambda SAT8 (n)\n  (if\n    (arm (<= n 16'0)\n      (return 8'0U)\n    )\n    \
         (arm (>= n 16'255)\n      (return 8'255U)\n    )\n    (else\n      \
         (return (. (slice n 7 0) u8))\n    )\n  )\n)\n(= (. D0 u8) (call SAT8 (. S0 i16)))\n"
    );
    // Statements in a lambda body are separated by line breaks like top-level ones.
    let program = parse_ok("F = lambda(x) (\ndeclare t : 8'U\nt = x\nreturn t)");
    assert!(
        matches!(&program.body[0], Stmt::LambdaBlock { body, .. } if body.len() == 3),
        "{program:?}"
    );
}

#[test]
fn lambda_name_must_be_a_plain_name() {
    let src = "x.y = lambda(a) (a)";
    let error = parse_err(src);
    assert!(matches!(
        error.kind,
        SyntaxErrorKind::UnexpectedToken { .. }
    ));
    assert_eq!(text(src, error.span), "lambda");
}

#[test]
fn concat_as_target() {
    let src = "{ TTMP[1], TTMP[0] } = { 7'0, HT[0], TrapID[7 : 0], PC[47 : 0] };";
    let program = parse_ok(src);
    let Stmt::Assign { target, value, .. } = &program.body[0] else {
        panic!("not an assignment");
    };
    assert!(matches!(target, Expr::Concat { parts, .. } if parts.len() == 2));
    assert!(
        matches!(value, Expr::Concat { parts, .. } if parts.len() == 4
        && matches!(parts[0], Expr::Int { value: 0, suffix: IntSuffix::Sized(7, None), .. }))
    );
    assert_eq!(text(src, target.span()), "{ TTMP[1], TTMP[0] }");
}

#[test]
fn compound_assignment_to_memory() {
    assert_eq!(
        printed("MEM[ADDR].u32 += DATA.u32"),
        "(+= (. (index MEM ADDR) u32) (. DATA u32))\n"
    );
    assert_eq!(printed("j |= i & 0x20"), "(|= j (& i 32))\n");
}

#[test]
fn chained_assignment_runs_right_to_left() {
    let src = "EXEC.u64[laneId] = D0.u64[laneId] = S0.f16 < S1.f16;";
    assert_eq!(
        printed(src),
        "(= (index (. D0 u64) laneId) (< (. S0 f16) (. S1 f16)))\n\
         (= (index (. EXEC u64) laneId) (index (. D0 u64) laneId))\n"
    );
    assert_eq!(
        printed("a = b.u32 = c[1] = 0"),
        "(= (index c 1) 0)\n(= (. b u32) (index c 1))\n(= a (. b u32))\n"
    );
    let program = parse_ok(src);
    assert_eq!(
        text(src, program.body[0].span()),
        "D0.u64[laneId] = S0.f16 < S1.f16"
    );
    assert_eq!(text(src, program.body[1].span()), &src[..src.len() - 1]);
}

#[test]
fn if_elsif_else() {
    let src = "if WAVE_MODE.IEEE then\nD0.f32 = 1.0F\nelsif isQuietNAN(64'F(S1.f32)) then\n\
               D0.f32 = S0.f32\nelse\nD0.f32 = S1.f32\nendif;";
    let program = parse_ok(src);
    let Stmt::If {
        arms, otherwise, ..
    } = &program.body[0]
    else {
        panic!("not an if");
    };
    assert_eq!(arms.len(), 2);
    assert!(matches!(&arms[0].cond, Expr::Field { field, .. } if field == "IEEE"));
    assert!(matches!(&arms[1].cond, Expr::Call { name, args, .. }
    if name == "isQuietNAN" && matches!(&args[0], Expr::Cast {
        ty: TypeSpec { width: 64, letter: TypeLetter::F }, ..
    })));
    assert_eq!(otherwise.as_ref().map(Vec::len), Some(1));
}

#[test]
fn while_break_continue_return() {
    assert_eq!(
        printed("while !done do\nif x then break else continue endif\nendwhile;\nreturn"),
        "(while (! done)\n  (if\n    (arm x\n      (break)\n    )\n    (else\n      \
         (continue)\n    )\n  )\n)\n(return)\n"
    );
}

#[test]
fn case_statement() {
    let src = "case sel of\n0, 1: x = 1\ny = 2\n2: x = 3\ndefault: x = 4\nendcase";
    assert_eq!(
        printed(src),
        "(case sel\n  (arm (0 1)\n    (= x 1)\n    (= y 2)\n  )\n  (arm (2)\n    (= x 3)\n  )\n  \
         (default\n    (= x 4)\n  )\n)\n"
    );
}

#[test]
fn declare_array() {
    assert!(matches!(
        &parse_ok("declare tmp : 32'B[64];").body[0],
        Stmt::Declare {
            ty: TypeSpec {
                width: 32,
                letter: TypeLetter::B
            },
            len: Some(64),
            ..
        }
    ));
    let src = "declare tmp : 32'B[4294967296];";
    let error = parse_err(src);
    assert_eq!(error.kind, SyntaxErrorKind::LiteralOverflow);
    assert_eq!(text(src, error.span), "4294967296");
}

#[test]
fn keyword_in_is_also_a_name() {
    let src = "declare in : 8'B[8];\nfor i in 0 : 7 do\nin[i] = data[i * 8 + 7 : i * 8].b8\n\
               endfor;\nD0 = in[sel]";
    assert_eq!(
        printed(src),
        "(declare in 8'B 8)\n(for i 0 7\n  (= (index in i) (. (slice data (+ (* i 8) 7) (* i 8)) b8))\n\
         )\n(= D0 (index in sel))\n"
    );
}

// --- Literals and operators ---------------------------------------------------------------

#[test]
fn literals() {
    assert!(matches!(
        value_of("6'60U"),
        Expr::Int {
            value: 60,
            suffix: IntSuffix::Sized(6, Some(TypeLetter::U)),
            ..
        }
    ));
    assert!(matches!(
        value_of("8'0xff"),
        Expr::Int {
            value: 255,
            suffix: IntSuffix::Sized(8, None),
            ..
        }
    ));
    assert!(matches!(
        value_of("3'0"),
        Expr::Int {
            value: 0,
            suffix: IntSuffix::Sized(3, None),
            ..
        }
    ));
    assert!(matches!(
        value_of("0x1LL"),
        Expr::Int {
            value: 1,
            suffix: IntSuffix::LL,
            ..
        }
    ));
    assert!(matches!(
        value_of("0xfffffffcU"),
        Expr::Int {
            value: 0xffff_fffc,
            suffix: IntSuffix::U,
            ..
        }
    ));
    assert!(matches!(
        value_of("0x100000000ULL"),
        Expr::Int {
            value: 0x1_0000_0000,
            suffix: IntSuffix::ULL,
            ..
        }
    ));
    assert!(matches!(
        value_of("42"),
        Expr::Int {
            value: 42,
            suffix: IntSuffix::None,
            ..
        }
    ));
    assert!(matches!(value_of("1.0F"), Expr::Float { value, width: Some(32), .. } if value == 1.0));
    assert!(matches!(value_of("0.5"), Expr::Float { value, width: None, .. } if value == 0.5));
    assert!(
        matches!(value_of("16'0.5"), Expr::Float { value, width: Some(16), .. } if value == 0.5)
    );
    assert!(
        matches!(value_of("1.5e-3"), Expr::Float { value, width: None, .. } if value == 1.5e-3)
    );
    assert!(
        matches!(value_of("1e-3F"), Expr::Float { value, width: Some(32), .. } if value == 1e-3)
    );
    assert!(matches!(value_of("1201'0x1fffffffffffff"),
        Expr::Int { value: 0x1f_ffff_ffff_ffff, suffix: IntSuffix::Sized(1201, None), ref wide, .. }
            if wide.is_empty()));
    // Wider than 128 bits: the digits are kept.
    let digits = format!("1{}", "0".repeat(40));
    let Expr::Int { value, wide, .. } = value_of(&format!("256'0x{digits}")) else {
        panic!("not an int");
    };
    assert_eq!(wide, digits);
    assert_eq!(value, 0);
    // `INF` and `NAN` are names; the sign is a unary operator.
    assert_eq!(expr_printed("-INF"), "(- INF)");
    assert_eq!(expr_printed("+INF"), "(+ INF)");
    assert_eq!(expr_printed("NAN"), "NAN");
}

#[test]
fn sized_types_and_casts() {
    assert_eq!(
        expr_printed("16'F(2.0F ** 32'I(S1.i16))"),
        "(cast 16'F (** 2.0F (cast 32'I (. S1 i16))))"
    );
    assert_eq!(expr_printed("16'BF(x)"), "(cast 16'BF x)");
    assert_eq!(
        expr_printed("64'F((1201'B(2.0 / PI)[1200 : 0] << shift.u32) & 1201'0x1fffffffffffff)"),
        "(cast 64'F (& (<< (slice (cast 1201'B (/ 2.0 PI)) 1200 0) (. shift u32)) \
         1201'9007199254740991))"
    );
}

#[test]
fn operator_precedence() {
    assert_eq!(
        expr_printed("a || b && c | d ^ e & f"),
        "(|| a (&& b (| c (^ d (& e f)))))"
    );
    assert_eq!(
        expr_printed("a == b < c << d + e * f"),
        "(== a (< b (<< c (+ d (* e f)))))"
    );
    assert_eq!(expr_printed("a - b - c"), "(- (- a b) c)");
    // `<>` is its own operator (ordered on floats), at the precedence of `!=`.
    assert_eq!(expr_printed("a <> b"), "(<> a b)");
    assert_eq!(expr_printed("a <> b == c"), "(== (<> a b) c)");
    assert_eq!(expr_printed("-2 ** 2"), "(- (** 2 2))");
    assert_eq!(expr_printed("2 ** 3 ** 2"), "(** 2 (** 3 2))");
    assert_eq!(expr_printed("2 ** -x"), "(** 2 (- x))");
    assert_eq!(expr_printed("~a.u32 % 3"), "(% (~ (. a u32)) 3)");
    assert_eq!(expr_printed("!(a >= b)"), "(! (>= a b))");
    assert_eq!(
        expr_printed("{ ~lane[5], lane[4 : 0] }"),
        "(concat (~ (index lane 5)) (slice lane 4 0))"
    );
    assert_eq!(
        expr_printed("VGPR[lane][VDST.u32]"),
        "(index (index VGPR lane) (. VDST u32))"
    );
    assert!(matches!(
        value_of("-x"),
        Expr::Unary {
            op: UnaryOp::Neg,
            ..
        }
    ));
}

#[test]
fn sized_forms_are_single_tokens() {
    let kinds: Vec<&str> = tokens("6'60U 32'U 16'1.0 8'0xff 16'BF 1201'0x1f x.u32")
        .iter()
        .map(|token| match token {
            Token::Int(_) => "int",
            Token::Type(_) => "type",
            Token::Float(_) => "float",
            Token::Ident(_) => "ident",
            Token::Field(_) => "field",
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        ["int", "type", "float", "int", "type", "int", "ident", "field"]
    );
    // A blank after the dot makes it a stray `.`, not a field access.
    assert!(matches!(
        parse_err("x = a. u32").kind,
        SyntaxErrorKind::UnexpectedToken { .. }
    ));
}

/// Logos 0.15 called the wrong pattern's callback after backtracking out of a longer literal
/// pattern (`8'0.U` panicked in decimal decoding); numbers are now scanned by hand.
#[test]
fn logos_backtracking_in_numbers() {
    let cases: &[(&str, &[&str])] = &[
        ("8'0.U", &["8'0", ".U"]),
        ("8'0.", &["8'0", "."]),
        ("8'0x", &["8'0", "x"]),
        ("8'0xffU", &["8'0xffU"]),
        ("8'0B", &["8'0B"]),
        ("8'BFx", &["8'BF", "x"]),
        ("16'1.e", &["16'1", ".e"]),
        ("16'1.5e-3x", &["16'1.5e-3", "x"]),
        ("1.x", &["1", ".x"]),
        ("1.0e+", &["1.0", "e", "+"]),
        ("1e5F", &["1e5F"]),
        ("1e", &["1", "e"]),
        ("0x", &["0", "x"]),
        ("00x1", &["00", "x1"]),
        ("0x1fULL", &["0x1fULL"]),
        ("1UL", &["1U", "L"]),
        ("0..2", &["0", ".", ".", "2"]),
    ];
    for (src, expected) in cases {
        let texts: Vec<&str> = match lex(src) {
            Ok(triples) => triples
                .iter()
                .map(|(start, _, end)| &src[*start..*end])
                .collect(),
            Err(error) => panic!("{src:?}: {}", error.message),
        };
        assert_eq!(&texts, expected, "{src:?}");
    }
    assert_eq!(parse_err("x = 8'").kind, SyntaxErrorKind::InvalidToken);
    assert!(parse("SAT8 = lambda(n) (\nreturn 8'0.U)").is_ok());
}

// --- The newline rule ---------------------------------------------------------------------

#[test]
fn newline_separates_complete_statements() {
    assert_eq!(printed("a = b\nc = d").lines().count(), 2);
    // Blank lines and comment lines collapse into one separator at the first line break.
    let src = "a = b\n\n// note\n\nc = d";
    let triples = lex(src).unwrap_or_default();
    let newlines: Vec<usize> = triples
        .iter()
        .filter(|(_, token, _)| *token == Token::Newline)
        .map(|(start, _, _)| *start)
        .collect();
    assert_eq!(newlines, [5]);
    // A sized type can end a statement.
    assert_eq!(printed("declare x : 32'U\nx = 1").lines().count(), 2);
    // Statements on one line need a `;`.
    assert!(matches!(
        parse_err("a = b c = d").kind,
        SyntaxErrorKind::UnexpectedToken { .. }
    ));
    assert_eq!(printed("a = b; c = d").lines().count(), 2);
}

#[test]
fn newline_continues_an_incomplete_line() {
    // A line ending in an operator continues.
    assert_eq!(printed("a = b +\nc"), "(= a (+ b c))\n");
    // A line starting with an operator continues.
    assert_eq!(printed("a = b\n+ c"), "(= a (+ b c))\n");
    assert_eq!(printed("a = b &&\n!c"), "(= a (&& b (! c)))\n");
    // Inside brackets every line break is dropped.
    assert_eq!(
        printed("a = f(b,\nc)\nd = x[1\n: 0]"),
        "(= a (call f b c))\n(= d (slice x 1 0))\n"
    );
    assert_eq!(printed("a = { b,\nc }"), "(= a (concat b c))\n");
    // `then`, `do`, `else` and the `end` keywords need no separator around them.
    assert_eq!(
        tokens("if a\nthen\nb = 1\nelse\nb = 2\nendif\nc = 3")
            .iter()
            .filter(|token| **token == Token::Newline)
            .count(),
        1
    );
    // The `in` of a for loop is a keyword, so a line break after it continues.
    assert_eq!(printed("for i in\n0 : 3 do\nendfor"), "(for i 0 3\n)\n");
    // A line break between `lambda(a)` and its body is dropped.
    assert_eq!(
        printed("F = lambda(a)\n(a + 1)"),
        "(lambda F (a) (+ a 1))\n"
    );
    // Leading and trailing line breaks and separators are fine.
    assert_eq!(printed("\n\n;a = 1;;\n\n"), "(= a 1)\n");
    assert_eq!(printed(""), "");
}

#[test]
fn bare_expression_is_not_a_statement() {
    let src = "x = 1\nexpcnt <= WaitEXPCNT";
    let error = parse_err(src);
    assert_eq!(error.kind, SyntaxErrorKind::NotAStatement);
    assert_eq!(text(src, error.span), "expcnt <= WaitEXPCNT");
    assert_eq!(printed("s_nop(16'0U)"), "(expr (call s_nop 16'0U))\n");
}

// --- Errors -------------------------------------------------------------------------------

#[test]
fn missing_endif_is_reported_at_the_end() {
    let src = "if a then\nb = 1\n";
    let error = parse_err(src);
    let SyntaxErrorKind::UnexpectedEof { expected } = &error.kind else {
        panic!("not an early end: {error:?}");
    };
    assert!(expected.contains(&"`endif`".to_string()), "{expected:?}");
    assert_eq!(error.span.start, error.span.end);
    assert!(error.span.start as usize >= "if a then\nb = 1".len());
    assert!(error
        .message
        .starts_with("unexpected end of text, expected"));
}

#[test]
fn wrong_end_keyword() {
    let src = "if a then\nb = 1\nendfor";
    let error = parse_err(src);
    let SyntaxErrorKind::UnexpectedToken { found, expected } = &error.kind else {
        panic!("not an unexpected token: {error:?}");
    };
    assert_eq!(found, "endfor");
    assert!(expected.contains(&"`endif`".to_string()), "{expected:?}");
    assert!(expected.len() <= 8);
    assert_eq!(text(src, error.span), "endfor");
    assert!(
        error.message.starts_with("unexpected `endfor`, expected"),
        "{}",
        error.message
    );
}

#[test]
fn invalid_characters_are_reported_where_they_are() {
    for (src, offset) in [
        ("x = a @ b", 6),
        ("x = $y", 4),
        ("x = 1\nthere's junk", 11),
        ("\"Wait for all instructions\";", 0),
    ] {
        let error = parse_err(src);
        assert_eq!(error.kind, SyntaxErrorKind::InvalidToken, "{src:?}");
        assert!(
            error.message.starts_with("invalid token `"),
            "{}",
            error.message
        );
        assert_eq!(error.span.start as usize, offset, "{src:?}");
        let lexed = lex(src).map(|_| ()).unwrap_err();
        assert_eq!(lexed, error, "{src:?}");
    }
}

#[test]
fn literal_overflow_is_an_error() {
    for src in [
        "x = 8'256",
        "x = 1'2U",
        "x = 0x100000000U",
        "x = 0x10000000000000000LL",
        "x = 340282366920938463463374607431768211456",
        "x = 4294967296'0",
        "x = 1e999",
        "x = 4'0x1f",
    ] {
        assert_eq!(
            parse_err(src).kind,
            SyntaxErrorKind::LiteralOverflow,
            "{src:?}"
        );
    }
    let error = parse_err("x = 0'U(y)");
    assert_eq!(error.kind, SyntaxErrorKind::ZeroWidth);
    assert_eq!(error.span, Span::new(4, 7));
}

#[test]
fn prose_and_stray_periods_fail() {
    for src in [
        "VDATA[1] = rawLOD.",
        "x = MIN(3, y). Priority = z",
        "for i = 0..2 do\nendfor",
        "(a, b) = f(x)",
        "...",
        "if a > 7\nb = 1\nendif",
    ] {
        assert!(
            matches!(parse_err(src).kind, SyntaxErrorKind::UnexpectedToken { .. }),
            "{src:?}"
        );
    }
}

#[test]
fn too_many_tokens() {
    let src = "x = 1;".repeat(MAX_TOKENS);
    assert_eq!(parse_err(&src).kind, SyntaxErrorKind::TooManyTokens);
}

#[test]
fn deep_nesting_within_the_limit_does_not_overflow() {
    // Test threads have small stacks; the token limit keeps every recursive pass in bounds.
    let unary = format!("x = {}y", "-".repeat(MAX_TOKENS - 4));
    let chain = format!("x = y{}", " + y".repeat(MAX_TOKENS / 2 - 3));
    let parens = format!(
        "x = {}y{}",
        "(".repeat(MAX_TOKENS / 2 - 3),
        ")".repeat(MAX_TOKENS / 2 - 3)
    );
    let ifs = format!(
        "{}{}",
        "if a then ".repeat(MAX_TOKENS / 4),
        "endif ".repeat(MAX_TOKENS / 4)
    );
    for src in [unary, chain, parens, ifs] {
        let result = std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || parse(&src).map(|program| print_program(&program).len()))
            .map(|handle| handle.join().is_ok());
        assert!(matches!(result, Ok(true)));
    }
}

// --- Property tests -----------------------------------------------------------------------

/// Token texts for random token streams.
const VOCABULARY: &[&str] = &[
    "if", "then", "elsif", "else", "endif", "for", "in", "do", "endfor", "while", "endwhile",
    "break", "continue", "return", "declare", "lambda", "case", "of", "default", "endcase", "x",
    "S0", ".u32", ".f16", "INF", "0", "63", "0xff", "1ULL", "6'60U", "8'0xff", "16'1.0", "1.0F",
    "32'U", "16'BF", "+", "-", "*", "/", "%", "**", "<<", ">>", "<", "<=", ">", ">=", "==", "!=",
    "<>", "&", "|", "^", "~", "!", "&&", "||", "?", ":", "=", "+=", "-=", "|=", "+:", ".", ",",
    ";", "(", ")", "[", "]", "{", "}", "\n", "//c\n", "'", "@", "\"",
];

/// Characters that make up numeric literals and their neighbours.
const NUMERIC_ALPHABET: &[char] = &[
    '0', '1', '8', '9', '\'', '.', 'x', 'X', 'e', 'E', 'f', 'F', 'U', 'I', 'L', 'B', '+', '-', ' ',
];

/// Snippets shaped like the corpus, for mutation.
const SEEDS: &[&str] = &[
    S_WQM_B64,
    "for i in 0 : WAVE32 ? 31 : 63 do\naltlane = { ~lane[5], lane[4 : 0] };\n\
     VGPR[lane][VDST.u32] = tmp[altlane]\nendfor",
    "LT = lambda(a, b) (\n((a < b) || (sign(a) && !sign(b))));\nif WAVE_MODE.IEEE then\n\
     D0.f16 = 16'F(2.0F ** 32'I(S1.i16))\nelsif isQuietNAN(64'F(S1.f32)) then\nD0 = -INF\n\
     else\nD0 = NAN\nendif;",
    "{ TTMP[1], TTMP[0] } = { 7'0, HT[0], TrapID[7 : 0], PC[47 : 0] };\n\
     MEM[ADDR].u32 += DATA.u32; D0.u32 = S0.u32[0 : 31]",
    "SAT8 = lambda(n) (\nif n <= 16'0 then\nreturn 8'0U\nelse\nreturn n[7 : 0].u8\nendif);",
];

/// Applies byte-level edits to `seed`: each `(position, byte, kind)` inserts, replaces or
/// deletes at `position` (taken modulo the length).
fn mutate(seed: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut bytes = seed.as_bytes().to_vec();
    for &(position, byte, kind) in edits {
        let at = if bytes.is_empty() {
            0
        } else {
            position % bytes.len()
        };
        match kind % 3 {
            0 => bytes.insert(at, byte),
            1 if !bytes.is_empty() => bytes[at] = byte,
            _ if !bytes.is_empty() => {
                bytes.remove(at);
            }
            _ => {}
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// Checks the invariants of any parse result: errors point inside the text.
fn check_never_panics(src: &str) {
    match parse(src) {
        Ok(program) => {
            let _ = print_program(&program);
        }
        Err(error) => {
            assert!(error.span.start <= error.span.end);
            assert!(error.span.end as usize <= src.len());
            assert!(!error.message.is_empty());
        }
    }
    let _ = lex(src);
}

proptest! {
    // Failures are reported, not saved into a file beside the sources.
    #![proptest_config(ProptestConfig {
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5eed),
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_never_panics(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_token_streams_never_panic(
        picks in proptest::collection::vec((0..VOCABULARY.len(), 0..3usize), 0..80),
    ) {
        let mut src = String::new();
        for (pick, gap) in picks {
            src.push_str(VOCABULARY[pick]);
            src.push_str(["", " ", "\n"][gap]);
        }
        check_never_panics(&src);
    }

    #[test]
    fn mutated_corpus_never_panics(
        seed in 0..SEEDS.len(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..6),
    ) {
        check_never_panics(&mutate(SEEDS[seed], &edits));
    }

    /// Every literal token, lexed on its own, is the same single token: the hand-written
    /// number scanner agrees with itself wherever a literal ends.
    #[test]
    fn literal_tokens_relex_to_themselves(
        picks in proptest::collection::vec(0..NUMERIC_ALPHABET.len(), 1..14),
    ) {
        let src: String = picks.iter().map(|&pick| NUMERIC_ALPHABET[pick]).collect();
        if let Ok(triples) = lex(&src) {
            for (start, token, end) in triples {
                if matches!(token, Token::Int(_) | Token::Float(_) | Token::Type(_)) {
                    let alone = lex(&src[start..end]).map(|triples| {
                        triples.into_iter().map(|(_, token, _)| token).collect::<Vec<_>>()
                    });
                    prop_assert_eq!(alone, Ok(vec![token]), "{:?} in {:?}", &src[start..end], src);
                }
            }
        }
    }

    #[test]
    fn spans_are_within_the_text(seed in 0..SEEDS.len()) {
        let src = SEEDS[seed];
        let program = parse_ok(src);
        for stmt in &program.body {
            prop_assert!(stmt.span().end as usize <= src.len());
            prop_assert!(stmt.span().start < stmt.span().end);
        }
    }
}

// --- Corpus scaffolding -------------------------------------------------------------------
