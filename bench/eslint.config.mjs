// The dev code's lint rules: see ../eslint.dev.config.mjs.
export { default } from '../eslint.dev.config.mjs';
