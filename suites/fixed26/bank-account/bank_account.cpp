#include "bank_account.h"

namespace Bankaccount {

}  // namespace Bankaccount
