// TypeScript and JSX for Jest through babel-jest (Jest's default transform): types are stripped, not checked.
module.exports = {
  presets: [
    ['@babel/preset-env', { targets: { node: 'current' } }],
    ['@babel/preset-react', { runtime: 'automatic' }],
    '@babel/preset-typescript',
  ],
};
