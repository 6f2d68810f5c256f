// ESLint for the browser client (src/flip7/server/static/js): plain ES modules that the
// browser loads as they are. `make jscheck` runs it, with `tsc` for the JSDoc types.
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    files: ["src/flip7/server/static/js/**/*.js"],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { ...globals.browser },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      ...js.configs.recommended.rules,
      // The developers' guide: no function over ~300 lines (blank lines and comments aside).
      "max-lines-per-function": ["error", { max: 300, skipBlankLines: false, skipComments: false, IIFEs: true }],
      // User text reaches the page as text only (util.js h()): never as markup.
      "no-restricted-properties": ["error",
        { property: "innerHTML", message: "Build nodes with h(); user text goes in as text." },
        { property: "outerHTML", message: "Build nodes with h(); user text goes in as text." },
        { property: "insertAdjacentHTML", message: "Build nodes with h(); user text goes in as text." },
      ],
      "no-unused-vars": ["error", { args: "after-used", ignoreRestSiblings: true, caughtErrors: "none" }],
      "no-alert": "error",
      eqeqeq: ["error", "always"],
      "array-callback-return": "error",
      "no-promise-executor-return": "error",
      "no-self-compare": "error",
      "no-template-curly-in-string": "error",
      "no-unmodified-loop-condition": "error",
      "no-unreachable-loop": "error",
      "no-use-before-define": ["error", { functions: false, classes: true, variables: false }],
      "no-eval": "error",
      "no-implied-eval": "error",
      "no-new-func": "error",
      "no-script-url": "error",
      "no-throw-literal": "error",
      "no-return-assign": "error",
      "no-sequences": "error",
      "no-var": "error",
      "prefer-const": ["error", { destructuring: "all" }],
      "default-case-last": "error",
    },
  },
];
