// Writes reference sentence vectors for our MiniLM test using langchain4j's own Java implementation
// (AllMiniLmL6V2EmbeddingModel and AllMiniLmL6V2QuantizedEmbeddingModel: ONNX Runtime + DJL's
// HuggingFace tokenizer, from the same Maven artifacts `pnpm models:fetch` unpacks).
// Usage (see README.md): java -cp "$(cat cp.txt)" RefVectors.java sentences.txt out.json
import dev.langchain4j.data.segment.TextSegment;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2.AllMiniLmL6V2EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

public class RefVectors {
  static String jsonString(String s) {
    StringBuilder b = new StringBuilder("\"");
    for (char c : s.toCharArray()) {
      if (c == '"' || c == '\\') b.append('\\').append(c);
      else if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
      else b.append(c);
    }
    return b.append('"').toString();
  }

  static String vectors(EmbeddingModel model, List<String> sentences) {
    // one call per sentence: the reference must not depend on batching/padding
    return sentences.stream().map(s -> {
      float[] v = model.embed(TextSegment.from(s)).content().vector();
      StringBuilder b = new StringBuilder("[");
      for (int i = 0; i < v.length; i++) b.append(i == 0 ? "" : ",").append(Float.toString(v[i]));
      return b.append(']').toString();
    }).collect(Collectors.joining(",\n    ", "[\n    ", "\n  ]"));
  }

  public static void main(String[] args) throws Exception {
    List<String> sentences = Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8).stream()
        .filter(l -> !l.isBlank()).collect(Collectors.toList());
    String json = "{\n  \"source\": \"langchain4j AllMiniLmL6V2EmbeddingModel / AllMiniLmL6V2QuantizedEmbeddingModel 1.19.0-beta29 (Java, ONNX Runtime 1.20.0, DJL tokenizers 0.36.0)\",\n"
        + "  \"sentences\": " + sentences.stream().map(RefVectors::jsonString).collect(Collectors.joining(",\n    ", "[\n    ", "\n  ]")) + ",\n"
        + "  \"fp32\": " + vectors(new AllMiniLmL6V2EmbeddingModel(), sentences) + ",\n"
        + "  \"q8\": " + vectors(new AllMiniLmL6V2QuantizedEmbeddingModel(), sentences) + "\n}\n";
    Files.writeString(Path.of(args[1]), json, StandardCharsets.UTF_8);
    System.out.println("wrote " + sentences.size() + " sentences x 2 models to " + args[1]);
  }
}
