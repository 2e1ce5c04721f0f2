import { exampleMain } from '../gemmini-example.js';

/* The ResNet-style CNN on Gemmini (README.md; options in gemmini-example.ts exampleMain). */
await exampleMain('gemmini-resnet');
