//! The readable form of a save (`World::readable`): keyed by the schema's
//! names and entity ids, it round trips every kind of state as exactly as
//! the compact form, in the order written or with its keys sorted (as
//! `serde_json::Value` keeps them), a person can patch it by name, and a
//! broken one (a key given twice among them) is refused with a reason,
//! never a panic.
//!
//! `cargo test -p ecs-tests --features serde --test saves -- readable::`

use super::save_adversarial::{
    assert_same, build, exercise, flips_never_panic, refused, small, Big, Hp, Pos, Small,
};
use ecs::prelude::*;
use serde_json::{json, Value};

fn readable_round(world: &World<Big>) -> World<Big> {
    let text = serde_json::to_string(&world.readable()).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Through `serde_json::Value`, whose objects sort their keys.
fn sorted_round(world: &World<Big>) -> World<Big> {
    let value = serde_json::to_value(world.readable()).unwrap();
    World::load(value).unwrap()
}

/// The text of `value`'s object with its keys in `order` (each nested
/// object as `serde_json::Value` writes it).
fn in_order(value: &Value, order: &[&str]) -> String {
    let parts: Vec<String> = order
        .iter()
        .map(|key| format!("{:?}:{}", key, value[*key]))
        .collect();
    format!("{{{}}}", parts.join(","))
}

const PARTS: [&str; 9] = [
    "format",
    "schema",
    "entities",
    "tables",
    "tags",
    "resources",
    "changes",
    "sparse",
    "locals",
];

#[test]
fn the_readable_form_round_trips_every_kind_of_state_and_runs_on_alike() {
    for seed in 0..4 {
        let world = build(seed);
        assert_same(readable_round(&world), world.clone(), "readable");
        assert_same(sorted_round(&world), world, "readable, keys sorted");
    }
    let mut cleared = build(9);
    cleared.clear();
    assert_same(readable_round(&cleared), cleared, "cleared");
    assert_same(
        readable_round(&World::<Big>::new()),
        World::<Big>::new(),
        "empty",
    );
}

#[test]
fn the_parts_load_in_any_order_that_puts_tables_before_tags() {
    let world = build(3);
    let value = serde_json::to_value(world.readable()).unwrap();
    let mut reversed = PARTS;
    reversed.reverse();
    // Reversed, but for the one rule.
    let (tables, tags) = (reversed.iter().position(|k| *k == "tables").unwrap(), 4);
    reversed.swap(tables, tags);
    assert!(
        reversed.iter().position(|k| *k == "tables") < reversed.iter().position(|k| *k == "tags")
    );
    let loaded: World<Big> = serde_json::from_str(&in_order(&value, &reversed)).unwrap();
    assert_same(loaded, world.clone(), "reversed");

    let mut tags_first = PARTS;
    tags_first.swap(3, 4);
    let error = serde_json::from_str::<World<Big>>(&in_order(&value, &tags_first))
        .expect_err("tags before tables")
        .to_string();
    assert!(error.contains("`tags` comes before `tables`"), "{error}");
}

#[test]
fn the_readable_form_is_keyed_by_the_schemas_names_and_entity_ids() {
    let Small {
        world,
        parent,
        star,
        ..
    } = small();
    let value = serde_json::to_value(world.readable()).unwrap();
    assert_eq!(value["schema"]["name"], json!("Big"));
    assert_eq!(value["schema"]["tags"], json!(["frozen"]));
    assert_eq!(value["tags"]["frozen"], json!([]));
    assert_eq!(
        value["schema"]["sparse"],
        json!(["stun", "mark", "follows"])
    );
    // The parent's table: its components by name, its id as text, its
    // values keyed by component.
    let id = format!("{}v{}", parent.index(), parent.generation());
    let table = value["tables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|table| table["entities"].as_array().unwrap().contains(&json!(id)))
        .expect("the parent's table");
    assert_eq!(table["components"], json!(["pos", "hp", "children"]));
    let row = table["entities"]
        .as_array()
        .unwrap()
        .iter()
        .position(|e| *e == json!(id))
        .unwrap();
    let (pos, hp) = (world.get::<Pos>(parent), world.get::<Hp>(parent));
    assert_eq!(table["values"]["pos"][row], json!(pos.unwrap().0));
    assert_eq!(table["values"]["hp"]["values"][row], json!(hp.unwrap().0));
    assert!(table["values"]["hp"]["changed"].is_array());
    // Sparse sets by name, with their owners' ids; resources by name.
    let star_id = format!("{}v{}", star.index(), star.generation());
    assert_eq!(value["sparse"]["mark"]["entities"], json!([star_id]));
    assert_eq!(value["sparse"]["mark"]["values"], json!(["star"]));
    // The header names the resources as the `resources` object keys them.
    let resources = ["time", "log", "hit", "phase"];
    assert_eq!(value["schema"]["resources"], json!(resources));
    let keys: Vec<&String> = value["resources"].as_object().unwrap().keys().collect();
    assert_eq!(keys.len(), resources.len());
    for resource in resources {
        assert!(value["resources"].get(resource).is_some(), "{resource}");
    }
}

#[test]
fn a_person_can_patch_a_value_by_name_and_the_save_loads_with_it() {
    let Small { world, parent, .. } = small();
    let mut value = serde_json::to_value(world.readable()).unwrap();
    let id = json!(format!("{}v{}", parent.index(), parent.generation()));
    for table in value["tables"].as_array_mut().unwrap() {
        if let Some(row) = table["entities"]
            .as_array()
            .unwrap()
            .iter()
            .position(|e| *e == id)
        {
            table["values"]["pos"][row] = json!(42);
            table["values"]["hp"]["values"][row] = json!(99);
        }
    }
    let loaded = World::<Big>::load(value).unwrap();
    assert_eq!(loaded.get::<Pos>(parent), Some(&Pos(42)));
    assert_eq!(loaded.get::<Hp>(parent), Some(&Hp(99)));
    assert_eq!(loaded.len(), world.len());
}

/// The small world's readable save, edited, must be refused with a reason
/// that holds `expected` (and no panic, nor a target changed in place).
fn expect_refused(what: &str, expected: &str, edit: impl FnOnce(&mut Value, &Small)) {
    let small = small();
    let mut value = serde_json::to_value(small.world.readable()).unwrap();
    assert!(World::<Big>::load(value.clone()).is_ok());
    edit(&mut value, &small);
    match refused(value) {
        Ok(reason) => assert!(reason.contains(expected), "{what}: {reason}"),
        Err(wrong) => panic!("{what}: {wrong}"),
    }
}

/// The index of the table holding `e`, and its row there.
fn place(value: &Value, e: Entity) -> (usize, usize) {
    let id = json!(format!("{}v{}", e.index(), e.generation()));
    value["tables"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
        .find_map(|(t, table)| {
            let rows = table["entities"].as_array().unwrap();
            rows.iter().position(|e| *e == id).map(|row| (t, row))
        })
        .expect("a live entity's table")
}

#[test]
fn a_broken_readable_save_is_refused_with_a_reason() {
    expect_refused(
        "an id of another generation",
        "but the entity of slot",
        |v, s| {
            let (t, row) = place(v, s.parent);
            let stale = format!("{}v{}", s.parent.index(), s.parent.generation().get() + 1);
            v["tables"][t]["entities"][row] = json!(stale);
        },
    );
    expect_refused("an id that is not one", "an entity id", |v, s| {
        let (t, row) = place(v, s.parent);
        v["tables"][t]["entities"][row] = json!("parent");
    });
    expect_refused("a zero generation", "an entity id", |v, s| {
        let (t, row) = place(v, s.parent);
        v["tables"][t]["entities"][row] = json!(format!("{}v0", s.parent.index()));
    });
    expect_refused("a component of no schema", "does not have", |v, s| {
        let (t, _) = place(v, s.parent);
        v["tables"][t]["components"][0] = json!("speed");
    });
    expect_refused(
        "a sparse component in a table",
        "which is sparse",
        |v, s| {
            let (t, _) = place(v, s.parent);
            v["tables"][t]["components"]
                .as_array_mut()
                .unwrap()
                .push(json!("stun"));
        },
    );
    expect_refused("a column missing", "lacks the values of `pos`", |v, s| {
        let (t, _) = place(v, s.parent);
        v["tables"][t]["values"]
            .as_object_mut()
            .unwrap()
            .remove("pos");
    });
    expect_refused(
        "a column of another table",
        "not one of its components",
        |v, s| {
            let (t, _) = place(v, s.parent);
            v["tables"][t]["values"]["mark"] = json!([]);
        },
    );
    expect_refused("a short column", "where it must have", |v, s| {
        let (t, _) = place(v, s.parent);
        v["tables"][t]["values"]["pos"]
            .as_array_mut()
            .unwrap()
            .pop();
    });
    expect_refused("a part of no save", "not one of its keys", |v, _| {
        v["extra"] = json!(1);
    });
    expect_refused("a part missing", "lacks `locals`", |v, _| {
        v.as_object_mut().unwrap().remove("locals");
    });
    expect_refused("another schema", "schema `Other`", |v, _| {
        v["schema"]["name"] = json!("Other");
    });
    // A schema has at most 128 components, so a longer list is refused as
    // it is read; resources are many more (bounded at 65,536), so 129 of
    // them are read and refused as another schema's.
    let names: Vec<String> = (0..129).map(|i| format!("c{i}")).collect();
    expect_refused("129 components", "more than 128 names", |v, _| {
        v["schema"]["components"] = json!(names);
    });
    expect_refused("129 resources", "not of schema `Big`", |v, _| {
        v["schema"]["resources"] = json!(names);
    });
    expect_refused(
        "a tag of no component",
        "not among its components",
        |v, _| {
            v["schema"]["tags"] = json!(["nope"]);
        },
    );
    expect_refused("a tag that carries data", "tags (zero-sized)", |v, _| {
        v["schema"]["tags"] = json!(["frozen", "pos"]);
    });
    expect_refused("a resource missing", "lacks `log`", |v, _| {
        v["resources"].as_object_mut().unwrap().remove("log");
    });
    expect_refused("a resource of no schema", "not one of its keys", |v, _| {
        v["resources"]["score"] = json!(0);
    });
    expect_refused(
        "a tracked column's ticks missing",
        "lacks `changed`",
        |v, s| {
            let (t, _) = place(v, s.parent);
            v["tables"][t]["values"]["hp"]
                .as_object_mut()
                .unwrap()
                .remove("changed");
        },
    );
    expect_refused("a sparse value of a dead entity", "in no table", |v, s| {
        let dead = format!("{}v{}", s.dead.index(), s.dead.generation().get() + 1);
        v["sparse"]["mark"]["entities"][0] = json!(dead);
    });
    expect_refused(
        "a sparse set of no component",
        "not one of its keys",
        |v, _| {
            v["sparse"]["pos"] = json!({"entities": [], "values": []});
        },
    );
    expect_refused("a tag's values missing", "lacks `frozen`", |v, _| {
        v["tags"].as_object_mut().unwrap().remove("frozen");
    });
}

/// A step into a JSON value: an object's key or an array's index.
enum Step {
    Key(&'static str),
    Index(usize),
}

/// The text of `value` (objects with their keys sorted, as
/// `serde_json::Value` keeps them), with the object at `path` holding `key`
/// once more, after its own keys: with its own value if it has the key (a
/// key given twice: JSON allows it, a `Value` cannot hold it, so the text is
/// written here), or `null`.
fn with_key(value: &Value, path: &[Step], key: &str) -> String {
    match (path.split_first(), value) {
        (None, Value::Object(map)) => {
            let mut parts: Vec<String> = map.iter().map(|(k, v)| format!("{k:?}:{v}")).collect();
            parts.push(format!("{key:?}:{}", map.get(key).unwrap_or(&Value::Null)));
            format!("{{{}}}", parts.join(","))
        }
        (Some((Step::Key(at), rest)), Value::Object(map)) => {
            let parts: Vec<String> = map
                .iter()
                .map(|(k, v)| match k == at {
                    true => format!("{k:?}:{}", with_key(v, rest, key)),
                    false => format!("{k:?}:{v}"),
                })
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        (Some((Step::Index(at), rest)), Value::Array(items)) => {
            let parts: Vec<String> = items
                .iter()
                .enumerate()
                .map(|(i, v)| match i == *at {
                    true => with_key(v, rest, key),
                    false => v.to_string(),
                })
                .collect();
            format!("[{}]", parts.join(","))
        }
        _ => panic!("the path does not lead to an object"),
    }
}

/// Each object of the small world's readable save that is keyed by fixed
/// names: where it is, and how errors name it.
fn fixed_objects(value: &Value, table: usize) -> Vec<(Vec<Step>, &'static str)> {
    assert!(value["sparse"].get("mark").is_some());
    vec![
        (vec![], "the world"),
        (vec![Step::Key("schema")], "the schema"),
        (vec![Step::Key("tables"), Step::Index(table)], "a table"),
        (vec![Step::Key("sparse"), Step::Key("mark")], "a sparse set"),
    ]
}

/// `text` must be refused with a reason that holds `expected`.
fn refused_text(text: &str, expected: &str) {
    match serde_json::from_str::<World<Big>>(text) {
        Ok(_) => panic!("loaded, where it should fail with: {expected}"),
        Err(error) => assert!(error.to_string().contains(expected), "{error}"),
    }
}

#[test]
fn an_unknown_key_is_refused_wherever_it_is_naming_the_known_ones() {
    let small = small();
    let value = serde_json::to_value(small.world.readable()).unwrap();
    let (table, _) = place(&value, small.parent);
    for (path, within) in fixed_objects(&value, table) {
        let text = with_key(&value, &path, "bogus");
        refused_text(
            &text,
            &format!("{within} of the save has `bogus`, which is not"),
        );
    }
    // Objects keyed by the schema's names name it too.
    refused_text(
        &with_key(&value, &[Step::Key("tags")], "bogus"),
        "the `tags` object of the save has `bogus`, which is not one of its keys (`frozen`)",
    );
    refused_text(
        &with_key(&value, &[Step::Key("sparse")], "bogus"),
        "the `sparse` object of the save has `bogus`",
    );
}

#[test]
fn a_key_given_twice_is_refused_wherever_it_is() {
    let small = small();
    let value = serde_json::to_value(small.world.readable()).unwrap();
    let (table, _) = place(&value, small.parent);
    let resource = value["resources"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap();
    let table_at = || vec![Step::Key("tables"), Step::Index(table)];
    let mut cases: Vec<(Vec<Step>, &str, String)> = Vec::new();
    for key in PARTS {
        cases.push((
            vec![],
            key,
            format!("the world of the save has `{key}` twice"),
        ));
    }
    for key in ["name", "components", "tags", "sparse", "resources"] {
        let expected = format!("the schema of the save has `{key}` twice");
        cases.push((vec![Step::Key("schema")], key, expected));
    }
    for key in ["components", "entities", "values"] {
        cases.push((
            table_at(),
            key,
            format!("a table of the save has `{key}` twice"),
        ));
    }
    let mut values_at = table_at();
    values_at.push(Step::Key("values"));
    let expected = "a table's `values` object of the save has `pos` twice";
    cases.push((values_at, "pos", expected.to_string()));
    let expected = "the `tags` object of the save has `frozen` twice";
    cases.push((vec![Step::Key("tags")], "frozen", expected.to_string()));
    let expected = "the `sparse` object of the save has `mark` twice";
    cases.push((vec![Step::Key("sparse")], "mark", expected.to_string()));
    for key in ["entities", "values"] {
        let expected = format!("a sparse set of the save has `{key}` twice");
        cases.push((vec![Step::Key("sparse"), Step::Key("mark")], key, expected));
    }
    let expected = format!("the `resources` object of the save has `{resource}` twice");
    cases.push((vec![Step::Key("resources")], resource, expected));

    for (path, key, expected) in cases {
        let text = with_key(&value, &path, key);
        match serde_json::from_str::<World<Big>>(&text) {
            Ok(_) => panic!("a save with `{key}` twice loaded"),
            Err(error) => assert!(
                error.to_string().contains(&expected),
                "`{key}` twice: {error}"
            ),
        }
    }
    // The same text without the duplicate loads: it is the key given
    // twice that is refused, not the way the text is written.
    let once: World<Big> = serde_json::from_str(&value.to_string()).unwrap();
    assert_same(once, small.world, "written from the sorted value");
}

#[test]
fn every_truncation_of_a_readable_save_is_an_error() {
    let text = serde_json::to_string(&small().world.readable()).unwrap();
    for len in 0..text.len() {
        assert!(
            serde_json::from_str::<World<Big>>(&text[..len]).is_err(),
            "a readable save cut to {len} of {} bytes loaded",
            text.len()
        );
    }
}

#[test]
fn the_compact_form_keys_resources_by_name_and_still_loads_them_as_a_list() {
    let world = build(5);
    let mut value = serde_json::to_value(&world).unwrap();
    let resources = value[5]
        .as_object()
        .expect("resources keyed by name")
        .clone();
    // The schema's order: plain resources, then events, then states.
    let listed: Vec<Value> = ["time", "log", "hit", "phase"]
        .iter()
        .map(|name| resources[*name].clone())
        .collect();
    value[5] = Value::Array(listed);
    assert_same(World::load(value).unwrap(), world, "resources as a list");
}

#[test]
fn random_byte_flips_of_a_readable_save_never_panic() {
    let seeds: Vec<Vec<u8>> = [small().world, build(21), build(22)]
        .iter()
        .map(|w| serde_json::to_vec(&w.readable()).unwrap())
        .collect();
    flips_never_panic(
        "random_byte_flips_of_a_readable_save_never_panic",
        &seeds,
        |input| {
            World::<Big>::load(&mut serde_json::Deserializer::from_slice(input)).is_ok_and(
                |world| {
                    exercise(world);
                    true
                },
            )
        },
    );
}
