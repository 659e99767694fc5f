package acctest

// What the external tests of this package reach of its unexported code.
var JSONCommand = jsonCommand
