"""JavaScript as Exercism lays it out: `<slug>.js` the solution, `<slug>.spec.js` the task's
Jest tests, `package.json`, `babel.config.js` and `.eslintrc` the exercise's configuration,
`.meta/proof.ci.js` the reference. Every file that tells npm, Babel or Jest how to load or
run code (and anything under `node_modules`) is the task's: a model that writes one is
refused, since Jest would load it beside the tests."""

from ..base import Layout

LAYOUT = Layout(
    name="javascript", title="JavaScript", solution_suffixes=(".js", ".mjs", ".cjs"),
    build_files=("package.json", "package-lock.json", "npm-shrinkwrap.json", ".npmrc", "yarn.lock",
                 "babel.config.js", "babel.config.cjs", "babel.config.mjs", "babel.config.json",
                 ".babelrc", ".babelrc.js", ".babelrc.cjs", ".babelrc.mjs", ".babelrc.json",
                 "jest.config.js", "jest.config.cjs", "jest.config.mjs", "jest.config.json", "jest.config.ts",
                 ".eslintrc", ".eslintrc.js", ".eslintrc.cjs", ".eslintrc.json", "eslint.config.js"),
    build_suffixes=(".spec.js", ".test.js", ".spec.mjs", ".test.mjs"),
    build_folders=("node_modules",),
    image_packages=("nodejs", "npm", "ca-certificates"),
    runs_locally=False,  # Jest and the exercises' Babel preset live in the image (assets/image.dockerfile)
)
