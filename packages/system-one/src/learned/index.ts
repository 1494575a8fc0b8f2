/**
 * Learned System-One models (ours): the `mem.learned/1` JSON weights format, logistic / softmax
 * inference with temperature, training + temperature calibration for the training scripts, and the
 * metrics (AUC, ECE, log loss, accuracy) to report beside them.
 */
export {
  LEARNED_FORMAT,
  LearnedModelSchema,
  parseLearnedModel,
  featureVector,
  modelLogits,
  hiddenUnits,
  predictProbabilities,
  predictProbability,
  compileLearnedModel,
  compileStagedLogistic,
  withTemperature,
  sigmoid,
  softmax,
} from './model.js';
export type { LearnedModel, FeatureInput, StagedLogistic } from './model.js';
export { trainLearnedModel, fitTemperature } from './train.js';
export type { TrainOptions } from './train.js';
export { trainRankingModel, rankGradient, fitPlatt, withPlatt } from './rank.js';
export type { RankObjective, RankTrainOptions } from './rank.js';
export { rocAuc, expectedCalibrationError, logLoss, accuracy, argmax } from './metrics.js';
