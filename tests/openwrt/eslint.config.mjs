// ESLint's configuration for luci-app-wanbond's views (test_luci_lint.sh).
// A LuCI view is a function body: LuCI's loader wraps the file, so it may
// "return" at the top and its 'require' lines are plain strings. The
// globals are LuCI's (L, E, _, N_) and the browser's. The rules are
// ESLint's recommended ones that find bugs, spelled out: the config loads
// no package but ESLint itself.
export default [
	{
		files: ['**/*.js'],
		languageOptions: {
			ecmaVersion: 2020,
			sourceType: 'script',
			parserOptions: { ecmaFeatures: { globalReturn: true } },
			globals: {
				L: 'readonly', E: 'readonly', _: 'readonly', N_: 'readonly',
				window: 'readonly', document: 'readonly', console: 'readonly',
				Promise: 'readonly', Date: 'readonly', Math: 'readonly', Object: 'readonly',
				CustomEvent: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly'
			}
		},
		rules: {
			'no-undef': 'error',
			'no-unused-vars': ['error', { args: 'none' }],
			'no-redeclare': 'error',
			'no-dupe-keys': 'error',
			'no-dupe-args': 'error',
			'no-duplicate-case': 'error',
			'no-unreachable': 'error',
			'no-unsafe-finally': 'error',
			'no-unsafe-negation': 'error',
			'no-func-assign': 'error',
			'no-const-assign': 'error',
			'no-self-assign': 'error',
			'no-cond-assign': 'error',
			'no-constant-condition': 'error',
			'no-empty': 'error',
			'no-extra-boolean-cast': 'error',
			'no-fallthrough': 'error',
			'no-sparse-arrays': 'error',
			'use-isnan': 'error',
			'valid-typeof': 'error',
			'no-use-before-define': ['error', { functions: false }],
			'strict': ['error', 'global'],
			'no-var': 'off',
			'eqeqeq': 'off'
		}
	}
];
