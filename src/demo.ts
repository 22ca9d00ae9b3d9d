// `npm run demo`: placeholder, filled in below.
console.log('demo');
