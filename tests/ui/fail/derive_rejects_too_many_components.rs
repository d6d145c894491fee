// 129 distinct components: one more than the widest archetype mask (u128)
// has bits. Everything below the `use` was generated (then committed as
// plain source) with:
//   python3 -c 'n=129; print("\n".join([f"pub struct C{i}(pub u8);" for i in range(n)] + ["", "#[derive(Schema)]", "pub struct Huge {"] + [f"    c{i}: C{i}," for i in range(n)] + ["}", "", "fn main() {}"]))'
use ecs::schema::Schema;

pub struct C0(pub u8);
pub struct C1(pub u8);
pub struct C2(pub u8);
pub struct C3(pub u8);
pub struct C4(pub u8);
pub struct C5(pub u8);
pub struct C6(pub u8);
pub struct C7(pub u8);
pub struct C8(pub u8);
pub struct C9(pub u8);
pub struct C10(pub u8);
pub struct C11(pub u8);
pub struct C12(pub u8);
pub struct C13(pub u8);
pub struct C14(pub u8);
pub struct C15(pub u8);
pub struct C16(pub u8);
pub struct C17(pub u8);
pub struct C18(pub u8);
pub struct C19(pub u8);
pub struct C20(pub u8);
pub struct C21(pub u8);
pub struct C22(pub u8);
pub struct C23(pub u8);
pub struct C24(pub u8);
pub struct C25(pub u8);
pub struct C26(pub u8);
pub struct C27(pub u8);
pub struct C28(pub u8);
pub struct C29(pub u8);
pub struct C30(pub u8);
pub struct C31(pub u8);
pub struct C32(pub u8);
pub struct C33(pub u8);
pub struct C34(pub u8);
pub struct C35(pub u8);
pub struct C36(pub u8);
pub struct C37(pub u8);
pub struct C38(pub u8);
pub struct C39(pub u8);
pub struct C40(pub u8);
pub struct C41(pub u8);
pub struct C42(pub u8);
pub struct C43(pub u8);
pub struct C44(pub u8);
pub struct C45(pub u8);
pub struct C46(pub u8);
pub struct C47(pub u8);
pub struct C48(pub u8);
pub struct C49(pub u8);
pub struct C50(pub u8);
pub struct C51(pub u8);
pub struct C52(pub u8);
pub struct C53(pub u8);
pub struct C54(pub u8);
pub struct C55(pub u8);
pub struct C56(pub u8);
pub struct C57(pub u8);
pub struct C58(pub u8);
pub struct C59(pub u8);
pub struct C60(pub u8);
pub struct C61(pub u8);
pub struct C62(pub u8);
pub struct C63(pub u8);
pub struct C64(pub u8);
pub struct C65(pub u8);
pub struct C66(pub u8);
pub struct C67(pub u8);
pub struct C68(pub u8);
pub struct C69(pub u8);
pub struct C70(pub u8);
pub struct C71(pub u8);
pub struct C72(pub u8);
pub struct C73(pub u8);
pub struct C74(pub u8);
pub struct C75(pub u8);
pub struct C76(pub u8);
pub struct C77(pub u8);
pub struct C78(pub u8);
pub struct C79(pub u8);
pub struct C80(pub u8);
pub struct C81(pub u8);
pub struct C82(pub u8);
pub struct C83(pub u8);
pub struct C84(pub u8);
pub struct C85(pub u8);
pub struct C86(pub u8);
pub struct C87(pub u8);
pub struct C88(pub u8);
pub struct C89(pub u8);
pub struct C90(pub u8);
pub struct C91(pub u8);
pub struct C92(pub u8);
pub struct C93(pub u8);
pub struct C94(pub u8);
pub struct C95(pub u8);
pub struct C96(pub u8);
pub struct C97(pub u8);
pub struct C98(pub u8);
pub struct C99(pub u8);
pub struct C100(pub u8);
pub struct C101(pub u8);
pub struct C102(pub u8);
pub struct C103(pub u8);
pub struct C104(pub u8);
pub struct C105(pub u8);
pub struct C106(pub u8);
pub struct C107(pub u8);
pub struct C108(pub u8);
pub struct C109(pub u8);
pub struct C110(pub u8);
pub struct C111(pub u8);
pub struct C112(pub u8);
pub struct C113(pub u8);
pub struct C114(pub u8);
pub struct C115(pub u8);
pub struct C116(pub u8);
pub struct C117(pub u8);
pub struct C118(pub u8);
pub struct C119(pub u8);
pub struct C120(pub u8);
pub struct C121(pub u8);
pub struct C122(pub u8);
pub struct C123(pub u8);
pub struct C124(pub u8);
pub struct C125(pub u8);
pub struct C126(pub u8);
pub struct C127(pub u8);
pub struct C128(pub u8);

#[derive(Schema)]
pub struct Huge {
    c0: C0,
    c1: C1,
    c2: C2,
    c3: C3,
    c4: C4,
    c5: C5,
    c6: C6,
    c7: C7,
    c8: C8,
    c9: C9,
    c10: C10,
    c11: C11,
    c12: C12,
    c13: C13,
    c14: C14,
    c15: C15,
    c16: C16,
    c17: C17,
    c18: C18,
    c19: C19,
    c20: C20,
    c21: C21,
    c22: C22,
    c23: C23,
    c24: C24,
    c25: C25,
    c26: C26,
    c27: C27,
    c28: C28,
    c29: C29,
    c30: C30,
    c31: C31,
    c32: C32,
    c33: C33,
    c34: C34,
    c35: C35,
    c36: C36,
    c37: C37,
    c38: C38,
    c39: C39,
    c40: C40,
    c41: C41,
    c42: C42,
    c43: C43,
    c44: C44,
    c45: C45,
    c46: C46,
    c47: C47,
    c48: C48,
    c49: C49,
    c50: C50,
    c51: C51,
    c52: C52,
    c53: C53,
    c54: C54,
    c55: C55,
    c56: C56,
    c57: C57,
    c58: C58,
    c59: C59,
    c60: C60,
    c61: C61,
    c62: C62,
    c63: C63,
    c64: C64,
    c65: C65,
    c66: C66,
    c67: C67,
    c68: C68,
    c69: C69,
    c70: C70,
    c71: C71,
    c72: C72,
    c73: C73,
    c74: C74,
    c75: C75,
    c76: C76,
    c77: C77,
    c78: C78,
    c79: C79,
    c80: C80,
    c81: C81,
    c82: C82,
    c83: C83,
    c84: C84,
    c85: C85,
    c86: C86,
    c87: C87,
    c88: C88,
    c89: C89,
    c90: C90,
    c91: C91,
    c92: C92,
    c93: C93,
    c94: C94,
    c95: C95,
    c96: C96,
    c97: C97,
    c98: C98,
    c99: C99,
    c100: C100,
    c101: C101,
    c102: C102,
    c103: C103,
    c104: C104,
    c105: C105,
    c106: C106,
    c107: C107,
    c108: C108,
    c109: C109,
    c110: C110,
    c111: C111,
    c112: C112,
    c113: C113,
    c114: C114,
    c115: C115,
    c116: C116,
    c117: C117,
    c118: C118,
    c119: C119,
    c120: C120,
    c121: C121,
    c122: C122,
    c123: C123,
    c124: C124,
    c125: C125,
    c126: C126,
    c127: C127,
    c128: C128,
}

fn main() {}
