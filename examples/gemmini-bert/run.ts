import { exampleMain } from '../gemmini-example.js';

/* The BERT-style encoder on Gemmini (README.md; options in gemmini-example.ts exampleMain). Run make.py first. */
await exampleMain('gemmini-bert');
