package gcshape

import (
	"reflect"
	"slices"
	"testing"
)

func TestPointerPaths(t *testing.T) {
	type Inner struct {
		N    int64
		S    string
		None [0]*int
	}
	type Shape struct {
		A    int32
		P    *int
		In   Inner
		Arr  [2]Inner
		F    func()
		M    map[int]int
		Flat [4]uint8
	}
	got := PointerPaths("Shape", reflect.TypeFor[Shape]())
	want := []string{"Shape.P", "Shape.In.S", "Shape.Arr[].S", "Shape.F", "Shape.M"}
	if !slices.Equal(got, want) {
		t.Errorf("PointerPaths = %v, want %v", got, want)
	}
	if got := PointerPaths("ints", reflect.TypeFor[[3]int64]()); len(got) != 0 {
		t.Errorf("PointerPaths of an array of integers = %v, want none", got)
	}
}
