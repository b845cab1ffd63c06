"""Go as Exercism lays it out: `<name>.go` the solution, `<name>_test.go` (and a generated
`cases_test.go`) the task's tests, `go.mod` the module. Every file that tells `go` how to
build (the module and workspace files) and every test file is the task's: a model that writes
one is refused, since a test file compiles into the same binary as the tests."""

from ..base import Layout

LAYOUT = Layout(
    name="go", title="Go", solution_suffixes=(".go",),
    build_files=("go.mod", "go.sum", "go.work", "go.work.sum"),
    build_suffixes=("_test.go",),
    image_packages=("ca-certificates",),  # Go itself from bookworm-backports: assets/image.dockerfile
    runs_locally=False,  # the build cache made in the image is what makes a round cheap
)
