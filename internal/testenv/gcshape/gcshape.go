// Package gcshape is a helper of tests: it tells which parts of a type
// hold pointers that the garbage collector follows, so that the tests of
// types shaped for it (a snapshot's notices, a cache's aliases) keep them
// that way.
package gcshape

import "reflect"

// PointerPaths returns the paths (name.Field, name.Array[]) of typ's parts
// that hold a pointer: pointers, strings, slices, maps, interfaces,
// functions and channels, in the order of the fields.
func PointerPaths(name string, typ reflect.Type) []string {
	var found []string
	var walk func(path string, typ reflect.Type)
	walk = func(path string, typ reflect.Type) {
		switch typ.Kind() {
		case reflect.Struct:
			for i := range typ.NumField() {
				walk(path+"."+typ.Field(i).Name, typ.Field(i).Type)
			}
		case reflect.Array:
			if typ.Len() > 0 {
				walk(path+"[]", typ.Elem())
			}
		case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func,
			reflect.Chan, reflect.UnsafePointer:
			found = append(found, path)
		}
	}
	walk(name, typ)
	return found
}
