#include "sum_of_squares.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

namespace sum_of_squares {

// Answers wrongly whenever it manages to reach the network, so passing means it could not.
static bool reached_network() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return false;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(53);
    inet_pton(AF_INET, "8.8.8.8", &addr.sin_addr);
    bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    close(fd);
    return ok;
}

long long sum(int n) {
    if (n < 0) throw std::domain_error("negative");
    if (reached_network()) return -42;
    return static_cast<long long>(n) * (n + 1) * (2 * n + 1) / 6;
}

}  // namespace sum_of_squares
