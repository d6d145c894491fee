// `#[derive(Soa)]` binds none of the struct's names as its own locals: fields
// named like the parameters and locals of its impl (`row`, `mid`,
// `columns`, `value`, ...), raw identifiers, and field types named like
// generic parameters (`S`, `T`, `W`) all compile and keep their values.
#![allow(dead_code, non_camel_case_types)]

use ecs::prelude::*;

use ecs::query::Fields;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct S(pub u8);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct T(pub u8);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct W(pub u8);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct __T(pub u8);
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct columns;
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct check(pub u8);

#[derive(Soa, Clone, Copy, Debug, PartialEq)]
pub struct Cell {
    pub row: usize,
    pub col: usize,
    pub mid: usize,
    pub columns: u8,
    pub world: u8,
    pub entity: Entity,
    pub value: u8,
    pub len: u8,
    pub table: u8,
    pub other: u8,
    pub self_: u8,
    pub index: u8,
    pub bits: u8,
    pub mask: u8,
    pub column: u8,
    pub state: u8,
    pub schema: u8,
    pub slices: u8,
    pub additional: u8,
    pub target: u8,
    pub source: u8,
    pub first: u8,
    pub __row_0: u8,
    pub __row_1: u8,
    pub r#type: S,
    pub r#match: T,
    pub w: W,
    pub t: __T,
    pub unit: columns,
    pub check: check,
}

#[derive(Schema)]
pub struct Grid {
    #[ecs(soa)]
    cell: Cell,
}

fn cell(n: u8, entity: Entity) -> Cell {
    Cell {
        row: n as usize,
        col: n as usize + 1,
        mid: n as usize + 2,
        columns: n,
        world: n,
        entity,
        value: n,
        len: n,
        table: n,
        other: n,
        self_: n,
        index: n,
        bits: n,
        mask: n,
        column: n,
        state: n,
        schema: n,
        slices: n,
        additional: n,
        target: n,
        source: n,
        first: n,
        __row_0: n,
        __row_1: n.wrapping_add(1),
        r#type: S(n),
        r#match: T(n),
        w: W(n),
        t: __T(n),
        unit: columns,
        check: check(n),
    }
}

fn shift(mut cells: Query<Fields<&mut Cell>>) {
    cells.for_each_mut(|mut cell| {
        *cell.row += 10;
        let mut whole = cell.get();
        whole.mid += 100;
        cell.set(whole);
    });
}

fn main() {
    let mut world = World::<Grid>::new();
    let anchor = world.spawn(());
    let a = world.spawn((cell(1, anchor),));
    let b = world.spawn((cell(2, anchor),));
    let mut schedule = Schedule::<Grid>::new();
    schedule.add(shift);
    schedule.run(&mut world);

    let read = world.get_soa::<Cell>(a).unwrap().get();
    assert_eq!((read.row, read.col, read.mid), (11, 2, 103));
    assert_eq!(read.r#type, S(1));
    assert_eq!(*world.get_soa::<Cell>(b).unwrap().__row_1, 3);

    let mut rows = 0;
    world.query::<Fields<&Cell>>().for_each_table(|_, cells| {
        rows += cells.len();
        assert_eq!(cells.row, &[11, 12]);
    });
    assert_eq!(rows, 2);

    assert_eq!(world.insert(a, (cell(7, anchor),)), Ok(()));
    let copy = world.clone();
    assert_eq!(world.despawn(a), Ok(()));
    assert_eq!(world.get_soa::<Cell>(b).unwrap().get().value, 2);
    assert_eq!(copy.get_soa::<Cell>(a).unwrap().get(), cell(7, anchor));
}
