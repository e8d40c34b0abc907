//! Building challenges, reading answers and judging a response, on the facts of small pages.

use std::collections::BTreeSet;

use serde_json::json;

use super::*;

/// A shop page: a title that names the shop, a banner heading, sections, a coloured button.
fn facts() -> VerifyFacts {
    serde_json::from_value(json!({
        "area": {"x": 0, "y": 0, "width": 1280, "height": 900},
        "title": "Acme Shop",
        "items": [
            {"kind": "heading", "text": "Acme Shop", "box": [16, 10, 200, 30], "fontSize": 20, "color": "rgb(17, 17, 17)"},
            {"kind": "heading", "text": "Spring collection", "box": [16, 60, 400, 40], "fontSize": 32, "color": "rgb(17, 17, 17)"},
            {"kind": "paragraph", "text": "Light jackets and linen shirts for the first warm days.", "box": [16, 120, 600, 20], "fontSize": 16},
            {"kind": "button", "text": "Buy now", "box": [16, 300, 120, 48], "fontSize": 16, "background": "rgb(26, 77, 143)", "color": "rgb(255, 255, 255)"},
            {"kind": "heading", "text": "Delivery times", "box": [16, 500, 300, 30], "fontSize": 24, "color": "rgb(17, 17, 17)"},
            {"kind": "listItem", "text": "Free returns within thirty days", "box": [40, 560, 300, 20], "fontSize": 16},
            {"kind": "button", "text": "Wishlist", "box": [1100, 800, 100, 40], "fontSize": 16, "background": "rgb(255, 255, 255)"}
        ],
        "counts": {"headings": 3, "images": 2, "links": 4, "buttons": 2, "listItems": 3, "inputs": 0},
        "text": "Acme Shop Spring collection Light jackets and linen shirts for the first warm days. Buy now Delivery times Free returns within thirty days Wishlist"
    }))
    .unwrap()
}

fn answers(pairs: &[(&str, Value)]) -> serde_json::Map<String, Value> {
    pairs.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect()
}

/// The right answer to each challenge of `facts()`, as a model that looked gives it.
fn sighted(c: &Challenge) -> Value {
    let q = c.question.as_str();
    let text = [
        ("largest heading", "Spring collection"),
        ("first heading", "Acme Shop"),
        ("second heading", "Spring collection"),
        ("first paragraph", "Light jackets and linen shirts for the first warm days."),
        ("first button", "Buy now"),
        ("bulleted or numbered entry from", "Free returns within thirty days"),
        ("lowest heading", "Delivery times"),
    ];
    if let Some((_, a)) = text.iter().find(|(k, _)| q.contains(k) && c.format == "text") {
        return json!(a);
    }
    match c.format {
        "number" if q.contains("images") => json!(2),
        "number" if q.contains("buttons") => json!(2),
        "number" if q.contains("headings") => json!(3),
        "number" => json!(3),
        "yes or no" => json!(if q.contains("\"Wishlist\"") { "yes" } else { "no" }),
        "colour as #rrggbb" => json!("#1a4d8f"),
        _ if q.contains("\"Delivery times\"") => json!("middle left"),
        other => panic!("no sighted answer for {q} ({other})"),
    }
}

#[test]
fn visual_verify_asks_about_what_the_screenshot_shows_and_quotes_no_answer() {
    let c = build_challenges(&facts(), "http://127.0.0.1:4173/acme-shop", &[]).unwrap();
    let questions: BTreeSet<&str> = c.iter().map(|c| c.question.as_str()).collect();
    let expected: BTreeSet<&str> = [
        // Text by kind and rank; "Acme Shop" is the title's, so never asked.
        "What does the largest heading say?",
        "What does the first paragraph of body text from the top say?",
        "What is the label of the first button from the top?",
        "What does the first bulleted or numbered entry from the top say?",
        "How many headings does the screenshot show?",
        "How many bulleted or numbered entries does the screenshot show?",
        // One real label and two the page lacks, asked alike.
        "Is there a button labelled \"Wishlist\"?",
        "Is there a button labelled \"Checkout\"?",
        "Is there a button labelled \"Free shipping\"?",
        "What is the background colour of the first coloured (not white, grey or black) button from the top?",
        "Where in the screenshot is the text \"Delivery times\" (top/middle/bottom, left/center/right)?",
    ]
    .into();
    assert_eq!(questions, expected);
    assert_eq!(c.iter().filter(|c| c.format == "text").count(), 4);
    let ids: Vec<&str> = c.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, (1..=11).map(|i| format!("c{i}")).collect::<Vec<_>>());
    // No question carries another's answer; the expected answers are not serialised.
    let listed = serde_json::to_string(&c).unwrap();
    for secret in ["Spring", "Buy now", "Light jackets", "Free returns", "26, 77, 143"] {
        assert!(!listed.contains(secret), "{secret} leaked: {listed}");
    }
    // The same page asks the same way.
    let again = build_challenges(&facts(), "http://127.0.0.1:4173/acme-shop", &[]).unwrap();
    assert_eq!(serde_json::to_string(&again).unwrap(), listed);
}

/// The labels the yes/no questions quote, with their expected answers.
fn yes_no(c: &[Challenge]) -> Vec<(&str, bool)> {
    c.iter()
        .filter_map(|c| match c.expected {
            Some(Expected::Boolean(b)) => Some((c.question.split('"').nth(1).unwrap(), b)),
            _ => None,
        })
        .collect()
}

#[test]
fn visual_verify_yes_no_labels_are_of_one_family_so_the_list_does_not_answer_them() {
    // "Wishlist", a shop's label, is the real one: the two the page lacks are shop labels too,
    // so "no to whatever is on the list" gets the real one wrong.
    let c = build_challenges(&facts(), "http://127.0.0.1:4173/acme-shop", &[]).unwrap();
    let asked = yes_no(&c);
    assert_eq!(asked.iter().filter(|(_, yes)| *yes).map(|(l, _)| *l).collect::<Vec<_>>(), ["Wishlist"]);
    assert!(asked.iter().all(|(label, _)| challenges::LABEL_FAMILIES[0].contains(label)), "{asked:?}");
    // A documentation link shown: documentation labels, asked of a link.
    let mut docs = facts();
    let wishlist = docs.items.iter_mut().find(|i| i.text == "Wishlist").unwrap();
    (wishlist.kind, wishlist.text) = (ItemKind::Link, "Edit on GitHub".into());
    docs.text = docs.text.replace("Wishlist", "Edit on GitHub");
    let c = build_challenges(&docs, "http://127.0.0.1:4173/guide", &[]).unwrap();
    let asked = yes_no(&c);
    assert_eq!(asked.len(), 3);
    assert!(asked.contains(&("Edit on GitHub", true)), "{asked:?}");
    assert!(asked.iter().all(|(label, _)| challenges::LABEL_FAMILIES[2].contains(label)), "{asked:?}");
    assert!(c.iter().filter(|c| c.format == "yes or no").all(|c| c.question.starts_with("Is there a link that reads")));
    // A label on no list: the page's own button, two absent labels of one family.
    let mut own = facts();
    own.items.iter_mut().find(|i| i.text == "Wishlist").unwrap().text = "Compare plans".into();
    own.text = own.text.replace("Wishlist", "Compare plans");
    let c = build_challenges(&own, "http://127.0.0.1:4173/acme-shop", &[]).unwrap();
    let asked = yes_no(&c);
    assert!(asked.contains(&("Compare plans", true)), "{asked:?}");
    let family =
        challenges::LABEL_FAMILIES.iter().find(|f| f.contains(&asked.iter().find(|(_, y)| !y).unwrap().0)).unwrap();
    assert!(asked.iter().filter(|(_, yes)| !yes).all(|(label, _)| family.contains(label)), "{asked:?}");
}

#[test]
fn visual_verify_a_blind_model_is_never_trusted_and_a_sighted_one_is() {
    let c = build_challenges(&facts(), "http://127.0.0.1:4173/acme-shop", &[]).unwrap();
    let listed = serde_json::to_string(&c).unwrap();
    // Everything quoted in the tool's JSON, and the usual guesses, three tries.
    let quoted: Vec<String> = listed.split("\\\"").skip(1).step_by(2).map(str::to_string).collect();
    for attempt in 0..3 {
        let guess: serde_json::Map<String, Value> = c
            .iter()
            .map(|c| {
                let a = match c.format {
                    "text" => json!(quoted.get(attempt).cloned().unwrap_or_default()),
                    "number" => json!(["1", "2", "3"][attempt]),
                    "yes or no" => json!("yes"),
                    "colour as #rrggbb" => json!("black"),
                    _ => json!("top left"),
                };
                (c.id.clone(), a)
            })
            .collect();
        let v = judge_response(&c, &guess);
        assert!(!v.trusted, "attempt {attempt}: {}", v.summary);
    }
    let right: serde_json::Map<String, Value> = c.iter().map(|c| (c.id.clone(), sighted(c))).collect();
    let v = judge_response(&c, &right);
    assert_eq!((v.trusted, v.passed, v.total), (true, 11, 11), "{}", v.summary);
}

#[test]
fn visual_verify_caller_criteria_cannot_stand_in_for_the_page_challenges() {
    // A caller that wants a pass adds questions that carry their own answers: a model that
    // never opened the screenshot answers them all, and they outnumber the page's challenges.
    let easy: Vec<Criterion> = (0..40)
        .map(|i| {
            let word = format!("word{i}");
            serde_json::from_value(json!({"question": format!("Reply with the word {word}."), "expected": word}))
                .unwrap()
        })
        .collect();
    let c = build_challenges(&facts(), "http://x/", &easy).unwrap();
    assert_eq!(c.len(), 51, "11 page challenges and 40 criteria");
    // Blind: "no idea" to every page challenge (which passes the two labels the page lacks),
    // every criterion answered from its own question: 42 of 51, above 80 %.
    let blind: serde_json::Map<String, Value> = c
        .iter()
        .map(|c| {
            let own = c.question.strip_prefix("Reply with the word ").map(|w| w.trim_end_matches('.'));
            (c.id.clone(), json!(own.unwrap_or("no idea")))
        })
        .collect();
    let v = judge_response(&c, &blind);
    assert_eq!((v.trusted, v.passed, v.total), (false, 42, 51), "{}", v.summary);
    assert!(
        v.summary.starts_with(
            "Not trusted: 42 of 51 challenges passed (needs 80 % and the page's own challenges to pass on their own: \
             2 of 11, 0 of 4 text ones; the caller's criteria cannot stand in for them). Failed: "
        ),
        "{}",
        v.summary
    );
    // A model that looked passes the page's challenges and the criteria alike.
    let sighted_all: serde_json::Map<String, Value> = c
        .iter()
        .map(|ch| match ch.question.strip_prefix("Reply with the word ") {
            Some(w) => (ch.id.clone(), json!(w.trim_end_matches('.'))),
            None => (ch.id.clone(), sighted(ch)),
        })
        .collect();
    let v = judge_response(&c, &sighted_all);
    assert_eq!((v.trusted, v.passed, v.total), (true, 51, 51), "{}", v.summary);
}

#[test]
fn visual_verify_refuses_a_page_with_too_little_to_ask() {
    let mut thin = facts();
    thin.items.retain(|i| i.kind == ItemKind::Button);
    let refused = build_challenges(&thin, "http://x/", &[]).unwrap_err();
    assert_eq!(
        refused,
        BuildError::NotPossible(
            "verification is not possible here: the screenshot shows too little readable text to ask about (1 text \
             challenge found, 3 needed; text the page's title or address gives away does not count). Point \
             `selector` at a part of the page with more text, or give at least 3 criteria with known answers."
                .into()
        )
    );
    // Text the address gives away does not count either.
    let mut named = facts();
    named.items.retain(|i| i.kind == ItemKind::Heading);
    assert!(build_challenges(&named, "http://x/spring-collection/delivery-times", &[]).is_err());
    // Three criteria with known answers make it possible.
    let criteria: Vec<Criterion> = serde_json::from_value(json!([
        {"question": "How many products?", "expected": 12},
        {"question": "Is the banner shown?", "expected": false},
        {"question": "Footer text?", "expected": "All rights reserved"}
    ]))
    .unwrap();
    let c = build_challenges(&thin, "http://x/", &criteria).unwrap();
    let tail: Vec<&str> = c[c.len() - 3..].iter().map(|c| c.question.as_str()).collect();
    assert_eq!(tail, ["How many products?", "Is the banner shown?", "Footer text?"]);
}

#[test]
fn visual_verify_trust_needs_the_text_challenges() {
    let c = build_challenges(&facts(), "http://x/", &[]).unwrap();
    // Everything but two of the four text challenges: 9 of 11 is 82 %, yet not trusted.
    let mut wrong_texts = 0;
    let mostly: serde_json::Map<String, Value> = c
        .iter()
        .map(|c| {
            let a = if c.format == "text" && wrong_texts < 2 {
                wrong_texts += 1;
                json!("no idea")
            } else {
                sighted(c)
            };
            (c.id.clone(), a)
        })
        .collect();
    let v = judge_response(&c, &mostly);
    assert_eq!((v.trusted, v.passed, v.total), (false, 9, 11));
    assert!(
        v.summary.starts_with(
            "Not trusted: 9 of 11 challenges passed (needs 80 % and two thirds of the 4 text challenges). Failed: "
        ),
        "{}",
        v.summary
    );
    assert_eq!(judge_response(&c, &answers(&[])).passed, 0);
}

#[test]
fn visual_verify_trust_needs_80_percent_even_with_every_text_challenge_right() {
    let c = build_challenges(&facts(), "http://x/", &[]).unwrap();
    // Every text challenge right and `wrong` of the counts and the colour wrong.
    let with_wrong = |wrong: usize| {
        let mut left = wrong;
        let given: serde_json::Map<String, Value> = c
            .iter()
            .map(|c| {
                let miss = matches!(c.format, "number" | "colour as #rrggbb") && left > 0;
                left -= usize::from(miss);
                (c.id.clone(), if miss { json!("no idea") } else { sighted(c) })
            })
            .collect();
        judge_response(&c, &given)
    };
    // 8 of 11 is 73 %: the four texts read, yet below the threshold.
    let v = with_wrong(3);
    assert_eq!((v.trusted, v.passed, v.total, v.score), (false, 8, 11, 0.73), "{}", v.summary);
    // 9 of 11 is 82 %: trusted.
    let v = with_wrong(2);
    assert_eq!((v.trusted, v.passed, v.total, v.score), (true, 9, 11, 0.82), "{}", v.summary);
}

#[test]
fn visual_verify_prompt_names_no_site_and_warns_of_guessing() {
    let c = build_challenges(&facts(), "http://x/", &[]).unwrap();
    let prompt = looking_prompt("/tmp/shot.png", &c[..1], "Is the sale on?", "verify-1");
    assert_eq!(
        prompt,
        format!(
            "You are an independent checker. Open the image /tmp/shot.png and answer every question ONLY from what \
             you see in it. Do not open, fetch or search for the page, and do not answer from what pages like it \
             usually show: some questions ask about things that are not there, each answer is checked against the \
             page, and a guess fails the whole check. If something is not in the image, say so (for a yes/no \
             question: no).\n\nQuestions:\nc1. {} (answer: {})\n\nThen answer this from the image: Is the sale \
             on?\n\nCall submit_visual_response with session_id \"verify-1\", challenge_answers as an object keyed \
             by question id (e.g. {{\"c1\": \"...\"}}) and query_answer.",
            c[0].question, c[0].format
        )
    );
}

#[test]
fn visual_verify_caller_criteria_by_type_and_ghostlight_shapes() {
    let criteria: Vec<Criterion> = serde_json::from_value(json!([
        {"question": "How many products?", "expected": 12},
        {"question": "Is the banner shown?", "expected": false},
        {"question": "Header colour?", "expected": "#ff0000"},
        {"question": "Where is the logo?", "expected": "top right"},
        {"question": "Footer text?", "expected": "All rights reserved"},
        {"question": "Does the layout look balanced?", "type": "boolean"}
    ]))
    .unwrap();
    let c = build_challenges(&facts(), "http://x/", &criteria).unwrap();
    let tail = &c[c.len() - 6..];
    let formats: Vec<&str> = tail.iter().map(|c| c.format).collect();
    assert_eq!(
        formats,
        [
            "number",
            "yes or no",
            "colour as #rrggbb",
            "region words: top/middle/bottom and left/center/right",
            "text",
            "yes or no"
        ]
    );
    let expected = |i: usize| tail[i].expected.clone().unwrap();
    assert!(check_answer(&expected(0), &json!("12 products")));
    assert!(!check_answer(&expected(0), &json!("about 7")));
    assert!(check_answer(&expected(1), &json!("no, it is not")));
    assert!(check_answer(&expected(2), &json!("red")));
    assert!(check_answer(&expected(3), &json!("upper right")));
    assert!(check_answer(&expected(4), &json!("© 2026, all rights reserved.")));
    assert!(tail[5].expected.is_none(), "a question without an answer is not scored");

    // Ghostlight's answers: a list of {id, answer}; the unscored answer is reported as given.
    let list = json!(tail.iter().map(|c| json!({"id": c.id, "answer": "yes"})).collect::<Vec<_>>());
    let by_id = answers_from(&list).unwrap();
    let v = judge_response(tail, &by_id);
    assert_eq!(v.total, 5);
    assert_eq!(
        v.unscored,
        [UnscoredAnswer {
            id: tail[5].id.clone(),
            question: "Does the layout look balanced?".into(),
            answer: Some("yes".into())
        }]
    );
    assert_eq!(
        answers_from(&json!([{"id": "c1"}])).unwrap_err(),
        "challenge_answers[0]: give {\"id\": \"c1\", \"answer\": \"…\"}"
    );

    let bad: Vec<Criterion> = serde_json::from_value(json!([{"question": "x", "expected": [1]}])).unwrap();
    let refused = build_challenges(&facts(), "http://x/", &bad).unwrap_err();
    assert!(matches!(&refused, BuildError::BadCriteria(m) if m.starts_with("criteria[0].expected")), "{refused}");
    let unknown: Vec<Criterion> = serde_json::from_value(json!([{"question": "x", "type": "vibe"}])).unwrap();
    assert_eq!(
        build_challenges(&facts(), "http://x/", &unknown).unwrap_err(),
        BuildError::BadCriteria(
            "criteria[0].type: \"vibe\" is not one of text, number, boolean, colour, position".into()
        )
    );
}
