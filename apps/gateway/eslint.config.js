// The workspace rules, plus one Nest idiom: a module is an empty class whose content is its
// @Module() decorator, which the strict preset's no-extraneous-class would reject.
// The workspace config is not a project, so the project-boundary rule does not apply to it.
// eslint-disable-next-line @nx/enforce-module-boundaries
import root from '../../eslint.config.js';

export default [
  ...root,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-extraneous-class': ['error', { allowWithDecorator: true }],
    },
  },
];
