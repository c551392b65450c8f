/* The messages' text form (botwire/json.h, libbotwire_json): Kobuki bytes
 * to the JSON Lines `botwire decode` writes, and a line back to bytes.
 * Build: cc json_decode.c $(pkg-config --cflags --libs botwire) -lbotwire_json */
#include <botwire/json.h>
#include <stdio.h>

int main(void)
{
    static const uint8_t bytes[] = { 0xAA, 0x55, 0x06, 0x01, 0x04, 0x64, 0x00, 0x00, 0x00, 0x67 };
    char err[256];
    bw_json_decoder_t *d;
    if (bw_json_decoder_new(&d, "kobuki", NULL, "host", false, err, sizeof err) < 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    bw_json_decoder_push(d, bytes, sizeof bytes);
    bw_json_decoder_finish(d);
    size_t len;
    const char *text = bw_json_decoder_text(d, &len);
    fwrite(text, 1, len, stdout);
    bw_json_decoder_free(d);

    static const char line[] = "{\"type\":\"base_control\",\"speed\":100,\"radius\":0}";
    uint8_t frame[64];
    if (bw_json_encode("kobuki", line, sizeof line - 1, frame, sizeof frame, &len, err,
                       sizeof err) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    for (size_t i = 0; i < len; i++)
        printf("%02x%c", frame[i], i + 1 < len ? ' ' : '\n');
    return 0;
}
