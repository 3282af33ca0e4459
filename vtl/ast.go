package vtl

// The tree Compile builds. Nodes are rendered by a type switch (render.go);
// every node keeps the byte offset where it starts so that errors can
// name a line and column.

type block []node

type node interface{}

// textNode is literal output.
type textNode struct{ s string }

// refNode prints a reference.
type refNode struct{ ref *refExpr }

type setNode struct {
	target *refExpr
	value  expr
	pos    int
}

type ifNode struct {
	conds  []expr
	blocks []block
	orElse block
}

type foreachNode struct {
	slot int // the loop variable
	iter expr
	body block
	pos  int
}

type defineNode struct {
	slot int
	body block
}

type macroDef struct {
	name   string
	params []int // slots
	body   block
}

// macroCall is "#name(args)" for a name that is not a directive. API
// Gateway does not run macros and prints the call as written; raw keeps
// that text.
type macroCall struct {
	name string
	args []expr
	raw  string
	pos  int
}

type breakNode struct{}

type stopNode struct{}

// Expressions.

type expr interface{}

// literal is a constant: string, bool, int64, float64 or nil.
type literal struct{ v Value }

type partKind uint8

const (
	partProp partKind = iota
	partMethod
	partIndex
)

type refPart struct {
	kind partKind
	name string // property or method
	args []expr // method arguments
	idx  expr   // index
	pos  int
}

// refExpr is $name followed by properties, method calls and indexes.
type refExpr struct {
	slot  int
	name  string
	parts []refPart
	raw   string // the source text, printed when the reference is escaped
	pos   int
}

// interp is a double-quoted string with references or directives in it.
type interp struct{ body block }

type listLit struct{ items []expr }

type mapLit struct{ keys, vals []expr }

type rangeLit struct {
	from, to expr
	pos      int
}

type opKind uint8

const (
	opOr opKind = iota
	opAnd
	opEq
	opNe
	opLt
	opLe
	opGt
	opGe
	opAdd
	opSub
	opMul
	opDiv
	opMod
	opNot
	opNeg
)

type binary struct {
	op   opKind
	l, r expr
	pos  int
}

type unary struct {
	op  opKind
	x   expr
	pos int
}
